import type { ReactNode } from "react";
import { redirect } from "next/navigation";
import { SignInRedirect } from "@/components/auth/sign-in-redirect";
import { ConsoleShell } from "@/components/shell/console-shell";
import { FullProviders } from "@/components/shell/full-providers";
import { getPageSession, isSignedIn } from "@/lib/auth/page-guard";

/** Every console page needs a fully signed-in session; without one nothing below renders. */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const session = await getPageSession();
  if (!isSignedIn(session))
    return (
      <FullProviders>
        <SignInRedirect />
      </FullProviders>
    );
  // The instance requires MFA and this account has none: set it up before anything else.
  if (session.policy.requireMfa && !session.user.mfaEnabled) redirect("/mfa-setup");
  return (
    <FullProviders>
      <ConsoleShell>{children}</ConsoleShell>
    </FullProviders>
  );
}
