import { AddDevice } from "@/components/devices/add-device";
import { getPageSession, isSignedIn } from "@/lib/auth/page-guard";

/** Add device: any signed-in user for themselves; an admin for someone else with ?user=<username>. */
export default async function AddDevicePage({ searchParams }: { searchParams: Promise<{ user?: string | string[] }> }) {
  const session = await getPageSession();
  if (!isSignedIn(session)) return null;
  const requested = (await searchParams).user;
  const other = session.user.isAdmin && typeof requested === "string" && requested && requested !== session.user.username ? requested : null;
  return <AddDevice username={other ?? session.user.username} self={!other} />;
}
