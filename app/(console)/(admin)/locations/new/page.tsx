import { LocationWizard } from "@/components/locations/wizard/location-wizard";
import { adminSession } from "@/lib/auth/page-guard";

export default async function NewLocationPage() {
  if (!(await adminSession())) return null;
  return <LocationWizard />;
}
