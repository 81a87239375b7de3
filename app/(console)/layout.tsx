import type { ReactNode } from "react";
import { SignInRedirect } from "@/components/auth/sign-in-redirect";
import { ConsoleShell } from "@/components/shell/console-shell";
import { getPageSession, isSignedIn } from "@/lib/auth/page-guard";

/** Every console page needs a fully signed-in session; without one nothing below renders. */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const session = await getPageSession();
  if (!isSignedIn(session)) return <SignInRedirect />;
  return <ConsoleShell>{children}</ConsoleShell>;
}
