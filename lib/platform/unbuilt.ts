import "server-only";
/**
 * Answers for defguard routes whose feature is not built yet: what defguard answers while the
 * feature is unused, so its clients polling them see no error. The issue that builds a feature
 * replaces its function here with the real one (in its own domain).
 */
import { getDb } from "../db";
import { eq } from "drizzle-orm";
import { gateways, locations } from "../db/schema";

/** Oldest gateway defguard 1.6 accepts; older ones are listed by GET /outdated. */
export const MIN_GATEWAY_VERSION = [1, 5, 0] as const;

function versionBelow(version: string | null, min: readonly number[]): boolean {
  if (!version) return false;
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  if (!m) return false;
  const v = [Number(m[1]), Number(m[2]), Number(m[3])];
  for (let i = 0; i < 3; i++) if (v[i] !== min[i]) return v[i] < min[i];
  return false;
}

/**
 * GET /outdated: gateways that reported a version below the minimum (defguard's `{version,
 * hostname}` plus the location they serve, so the console can link to it); no proxy of
 * defguard's here.
 */
export async function outdatedComponents() {
  const rows = await getDb()
    .select({ version: gateways.version, hostname: gateways.hostname, locationId: gateways.locationId, locationName: locations.name })
    .from(gateways)
    .innerJoin(locations, eq(locations.id, gateways.locationId))
    .orderBy(gateways.locationId, gateways.hostname);
  const outdated: { version: string; hostname: string; location_id: number; location_name: string }[] = [];
  for (const r of rows) {
    if (!versionBelow(r.version, MIN_GATEWAY_VERSION)) continue;
    outdated.push({ version: r.version!, hostname: r.hostname, location_id: r.locationId, location_name: r.locationName });
  }
  return { gateways: outdated, proxy: null };
}

/** Any other /api/v1 path. */
export function unknownPathMessage(pathname: string): string {
  return `no such API endpoint: ${pathname}`;
}
