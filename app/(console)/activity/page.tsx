import { Suspense } from "react";
import { ActivityLog } from "@/components/activity/activity-log";
import { getPageSession, isSignedIn } from "@/lib/auth/page-guard";

/** Every signed-in user: admins see everyone's events, others their own (the API decides). */
export default async function ActivityPage() {
  const session = await getPageSession();
  if (!isSignedIn(session)) return null;
  return (
    <Suspense>
      <ActivityLog isAdmin={session.user.isAdmin} />
    </Suspense>
  );
}
