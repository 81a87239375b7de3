import { Suspense } from "react";
import { GroupsOverview } from "@/components/groups/groups-overview";
import { adminSession } from "@/lib/auth/page-guard";

export default async function GroupsPage() {
  // Refused by the (admin) layout; render nothing into the payload either.
  if (!(await adminSession())) return null;
  return (
    <Suspense>
      <GroupsOverview />
    </Suspense>
  );
}
