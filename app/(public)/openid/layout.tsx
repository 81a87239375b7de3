import type { ReactNode } from "react";
import { FullProviders } from "@/components/shell/full-providers";

export default function Layout({ children }: { children: ReactNode }) {
  return <FullProviders>{children}</FullProviders>;
}
