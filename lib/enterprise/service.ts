import { sql } from "drizzle-orm";
import { getDb } from "../db";
import { users } from "../db/schema";

/** Free tier without a licence (API.md): beyond these, enterprise features need a licence. */
export const FREE_LIMITS = { users: 5, devices: 10, locations: 1, networkDevices: 10 } as const;

export async function usageCounts() {
  const [{ n }] = await getDb().select({ n: sql<number>`count(*)::int` }).from(users);
  // Devices, locations and network devices arrive with the locations issue.
  return { users: n, devices: 0, locations: 0, networkDevices: 0 };
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
