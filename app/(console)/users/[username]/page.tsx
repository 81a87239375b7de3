import { Forbidden } from "@/components/shell/forbidden";
import { UserProfile } from "@/components/profile/user-profile";
import { getPageSession, isSignedIn } from "@/lib/auth/page-guard";

function decode(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** A user's profile: admins open anyone's, everybody else only their own (the API answers 403 too). */
export default async function UserProfilePage({ params }: { params: Promise<{ username: string }> }) {
  const session = await getPageSession();
  if (!isSignedIn(session)) return null;
  const username = decode((await params).username);
  const self = username.toLowerCase() === session.user.username.toLowerCase();
  if (!self && !session.user.isAdmin) return <Forbidden />;
  return <UserProfile username={self ? session.user.username : username} self={self} />;
}
