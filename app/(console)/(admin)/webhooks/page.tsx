import { Suspense } from "react";
import { WebhooksPage } from "@/components/webhooks/webhooks-page";
import { adminSession } from "@/lib/auth/page-guard";

export default async function Webhooks() {
  // Refused by the (admin) layout; render nothing into the payload either.
  if (!(await adminSession())) return null;
  return (
    <Suspense>
      <WebhooksPage />
    </Suspense>
  );
}
