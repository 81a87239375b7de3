import { Suspense } from "react";
import { AclPage } from "@/components/acl/acl-page";
import { adminSession } from "@/lib/auth/page-guard";

export default async function AccessControlPage() {
  // Refused by the (admin) layout; render nothing into the payload either.
  if (!(await adminSession())) return null;
  return (
    <Suspense>
      <AclPage />
    </Suspense>
  );
}
