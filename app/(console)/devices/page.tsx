import { DevicesPage } from "@/components/devices/devices-page";
import { getPageSession, isSignedIn } from "@/lib/auth/page-guard";

/** The signed-in user's devices; an admin may look at another user's with ?user=<username>. */
export default async function MyDevicesPage({ searchParams }: { searchParams: Promise<{ user?: string | string[] }> }) {
  const session = await getPageSession();
  if (!isSignedIn(session)) return null;
  const requested = (await searchParams).user;
  const other = session.user.isAdmin && typeof requested === "string" && requested && requested !== session.user.username ? requested : null;
  return <DevicesPage username={other ?? session.user.username} self={!other} />;
}
