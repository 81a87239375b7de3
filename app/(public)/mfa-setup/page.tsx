import { redirect } from "next/navigation";
import { SignInRedirect } from "@/components/auth/sign-in-redirect";
import { MfaSetupScreen } from "@/components/mfa/mfa-setup-screen";
import { getPageSession, homePath, isSignedIn, safeReturnPath } from "@/lib/auth/page-guard";

/**
 * MFA set-up forced by the instance policy (settings.require_mfa): a full-screen step that
 * offers only the set-up of a second factor and signing out. Anyone else is sent on.
 */
export default async function MfaSetupPage({ searchParams }: { searchParams: Promise<{ r?: string | string[] }> }) {
  const returnTo = safeReturnPath((await searchParams).r);
  const session = await getPageSession();
  if (!isSignedIn(session)) return <SignInRedirect />;
  if (!session.policy.requireMfa || session.user.mfaEnabled) redirect(returnTo ?? homePath(session));
  return <MfaSetupScreen returnTo={returnTo} />;
}
