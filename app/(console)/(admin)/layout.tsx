import type { ReactNode } from "react";
import { SignInRedirect } from "@/components/auth/sign-in-redirect";
import { Forbidden } from "@/components/shell/forbidden";
import { getPageSession, isSignedIn } from "@/lib/auth/page-guard";

/** Admin screens: refused on the server to anyone but a signed-in admin (each page checks too, see adminSession). */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const session = await getPageSession();
  if (!isSignedIn(session)) return <SignInRedirect />;
  if (!session.user.isAdmin) return <Forbidden />;
  return children;
}
