import type { ReactNode } from "react";
import { ModuleGate } from "@/components/shell/module-gate";

/** Admins land here after sign-in: while the WireGuard module is off they go to the users list instead. */
export default function Layout({ children }: { children: ReactNode }) {
  return <ModuleGate module="wireguard" elsewhere="/users">{children}</ModuleGate>;
}
