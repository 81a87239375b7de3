import { Suspense } from "react";
import { StaleAccessPage } from "@/components/reports/stale-access-page";
import { adminSession } from "@/lib/auth/page-guard";

export default async function StaleAccess() {
  // Refused by the (admin) layout; render nothing into the payload either.
  if (!(await adminSession())) return null;
  return (
    <Suspense>
      <StaleAccessPage />
    </Suspense>
  );
}
