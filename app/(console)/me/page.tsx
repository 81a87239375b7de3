import { UserProfile } from "@/components/profile/user-profile";
import { getPageSession, isSignedIn } from "@/lib/auth/page-guard";

/** My Profile: the signed-in user's own account, editable. */
export default async function MyProfilePage() {
  const session = await getPageSession();
  if (!isSignedIn(session)) return null;
  return <UserProfile username={session.user.username} self />;
}
