import type { ReactNode } from "react";
import { ModuleGate } from "@/components/shell/module-gate";

/** Hidden while the wireguard module is switched off in Settings → Global. */
export default function Layout({ children }: { children: ReactNode }) {
  return <ModuleGate module="wireguard">{children}</ModuleGate>;
}
