import { redirect } from "next/navigation";
import { LoginScreen } from "@/components/login/login-screen";
import { MFA_SETUP_PATH } from "@/components/mfa/api";
import { getPageSession, homePath, isSignedIn, safeReturnPath } from "@/lib/auth/page-guard";

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ r?: string | string[] }> }) {
  const returnTo = safeReturnPath((await searchParams).r);
  const session = await getPageSession();
  if (isSignedIn(session)) {
    // Signed in, but the instance requires MFA this account does not have yet.
    if (session.policy.requireMfa && !session.user.mfaEnabled) {
      redirect(returnTo ? `${MFA_SETUP_PATH}?r=${encodeURIComponent(returnTo)}` : MFA_SETUP_PATH);
    }
    redirect(returnTo ?? homePath(session));
  }
  return <LoginScreen returnTo={returnTo} />;
}
