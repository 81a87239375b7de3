import { Suspense } from "react";
import { OpenidApps } from "@/components/openid/openid-apps";
import { adminSession } from "@/lib/auth/page-guard";

export default async function OpenidAppsPage() {
  // Refused by the (admin) layout; render nothing into the payload either.
  if (!(await adminSession())) return null;
  return (
    <Suspense>
      <OpenidApps />
    </Suspense>
  );
}
