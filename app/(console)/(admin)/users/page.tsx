import { Suspense } from "react";
import { UsersOverview } from "@/components/users/users-overview";
import { adminSession } from "@/lib/auth/page-guard";

export default async function UsersPage() {
  // Refused by the (admin) layout; render nothing into the payload either.
  if (!(await adminSession())) return null;
  return (
    <Suspense>
      <UsersOverview />
    </Suspense>
  );
}
