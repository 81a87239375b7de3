import { redirect } from "next/navigation";
import { LoginScreen } from "@/components/login/login-screen";
import { getPageSession, homePath, isSignedIn, safeReturnPath } from "@/lib/auth/page-guard";

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ r?: string | string[] }> }) {
  const returnTo = safeReturnPath((await searchParams).r);
  const session = await getPageSession();
  if (isSignedIn(session)) redirect(returnTo ?? homePath(session));
  return <LoginScreen returnTo={returnTo} />;
}
