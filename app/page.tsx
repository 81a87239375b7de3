import { redirect } from "next/navigation";
import { getPageSession, homePath, isSignedIn } from "@/lib/auth/page-guard";

/** The start page: the signed-in user's home, or the login page. */
export default async function StartPage() {
  const session = await getPageSession();
  redirect(isSignedIn(session) ? homePath(session) : "/login");
}
