import { Suspense } from "react";
import { SettingsPage as SettingsScreen } from "@/components/settings/settings-page";
import { adminSession } from "@/lib/auth/page-guard";

export default async function SettingsPage() {
  // Refused by the (admin) layout; render nothing into the payload either.
  if (!(await adminSession())) return null;
  return (
    <Suspense>
      <SettingsScreen />
    </Suspense>
  );
}
