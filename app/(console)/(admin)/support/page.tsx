import { SupportPage } from "@/components/support/support-page";
import { adminSession } from "@/lib/auth/page-guard";

export default async function Support() {
  // Refused by the (admin) layout; render nothing into the payload either.
  if (!(await adminSession())) return null;
  return <SupportPage />;
}
