import { NetworkDevicesPage } from "@/components/network-devices/network-devices-page";
import { adminSession } from "@/lib/auth/page-guard";

export default async function NetworkDevicesRoute() {
  if (!(await adminSession())) return null;
  return <NetworkDevicesPage />;
}
