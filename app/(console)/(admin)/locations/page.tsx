import { LocationsList } from "@/components/locations/locations-list";
import { adminSession } from "@/lib/auth/page-guard";

export default async function LocationsPage() {
  if (!(await adminSession())) return null;
  return <LocationsList />;
}
