import "server-only";
import { sql } from "drizzle-orm";
import { getDb } from "../db";

/** Free tier without a licence (docs/api.md): beyond these, enterprise features need a licence. */
export const FREE_LIMITS = { users: 5, devices: 10, locations: 1, networkDevices: 10 } as const;

export async function usageCounts() {
  const r = await getDb().execute<{ users: number; devices: number; locations: number; network_devices: number }>(sql`
    select (select count(*)::int from users) users,
           (select count(*)::int from devices where device_type = 'user') devices,
           (select count(*)::int from locations) locations,
           (select count(*)::int from devices where device_type = 'network') network_devices`);
  const c = r.rows[0];
  return { users: c.users, devices: c.devices, locations: c.locations, networkDevices: c.network_devices };
}

export async function licenseInfo() {
  const c = await usageCounts();
  const limits_exceeded = {
    user: c.users > FREE_LIMITS.users,
    device: c.devices > FREE_LIMITS.devices,
    wireguard_network: c.locations > FREE_LIMITS.locations,
    network_device: c.networkDevices > FREE_LIMITS.networkDevices,
  };
  const any = Object.values(limits_exceeded).some(Boolean);
  return {
    enterprise: !any,
    limits_exceeded,
    any_limit_exceeded: any,
    is_enterprise_free: true,
    tier: null as string | null,
  };
}
