import type { ReactNode } from "react";
import { ModuleGate } from "@/components/shell/module-gate";

/** Hidden while the openid module is switched off in Settings → Global. */
export default function Layout({ children }: { children: ReactNode }) {
  return <ModuleGate module="openid">{children}</ModuleGate>;
}
