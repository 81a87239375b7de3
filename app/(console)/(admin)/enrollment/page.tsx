import { EnrollmentSettingsPage } from "@/components/enrollment/enrollment-settings";
import { adminSession } from "@/lib/auth/page-guard";

export default async function EnrollmentPage() {
  // Refused by the (admin) layout; render nothing into the payload either.
  if (!(await adminSession())) return null;
  return <EnrollmentSettingsPage />;
}
