import { Suspense } from "react";
import { ProvisionersPage } from "@/components/provisioning/provisioners-page";
import { adminSession } from "@/lib/auth/page-guard";

export default async function Provisioners() {
  // Refused by the (admin) layout; render nothing into the payload either.
  if (!(await adminSession())) return null;
  return (
    <Suspense>
      <ProvisionersPage />
    </Suspense>
  );
}
