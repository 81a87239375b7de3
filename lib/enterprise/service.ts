import "server-only";
import { sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { AppError } from "../errors";
import { decodeLicence, graceUntil, LicenceError, licenceState, type Licence, type LicenceLimits } from "./licence";

/** Free tier without a licence (docs/licence.md): beyond these, enterprise features need a licence. */
export const FREE_LIMITS = { users: 5, devices: 10, locations: 1, networkDevices: 10 } as const;

export interface Usage {
  users: number;
  devices: number;
  locations: number;
  networkDevices: number;
}

type Db = Pick<Tx, "execute">;

async function usageAndKey(db: Db = getDb()): Promise<{ usage: Usage; key: string | null }> {
  const r = await db.execute<{ users: number; devices: number; locations: number; network_devices: number; license: string | null }>(sql`
    select (select count(*)::int from users) users,
           (select count(*)::int from devices where device_type = 'user') devices,
           (select count(*)::int from locations) locations,
           (select count(*)::int from devices where device_type = 'network') network_devices,
           (select license from settings where id = 1) license`);
  const c = r.rows[0];
  return {
    usage: { users: c.users, devices: c.devices, locations: c.locations, networkDevices: c.network_devices },
    key: c.license && c.license.trim() ? c.license : null,
  };
}

export async function usageCounts(): Promise<Usage> {
  return (await usageAndKey()).usage;
}

/** The stored licence key, decoded: none, invalid (with the reason), or a licence and its state. */
export type LicenceStatus =
  | { state: "none" }
  | { state: "invalid"; error: string }
  | { state: "valid" | "grace" | "expired"; licence: Licence };

export function statusOfKey(key: string | null, now = Date.now()): LicenceStatus {
  if (!key) return { state: "none" };
  try {
    const licence = decodeLicence(key);
    return { state: licenceState(licence, now), licence };
  } catch (err) {
    if (err instanceof LicenceError) return { state: "invalid", error: err.message };
    throw err;
  }
}

export type LimitKind = "user" | "device" | "wireguard_network" | "network_device";
export type LimitsExceeded = Record<LimitKind, boolean>;

function exceeded(u: Usage, l: LicenceLimits): LimitsExceeded {
  return {
    user: u.users > l.users,
    device: u.devices > l.devices,
    wireguard_network: u.locations > l.locations,
    network_device: u.networkDevices > l.network_devices,
  };
}

const FREE: LicenceLimits = { users: FREE_LIMITS.users, devices: FREE_LIMITS.devices, locations: FREE_LIMITS.locations, network_devices: FREE_LIMITS.networkDevices };
const NONE_EXCEEDED: LimitsExceeded = { user: false, device: false, wireguard_network: false, network_device: false };

/** Everything the licence decides, from one read of the counts and the stored key. */
export interface Entitlement {
  usage: Usage;
  status: LicenceStatus;
  /** Limits in force: the licence's while it is valid or in grace (null: unlimited), else the free tier's. */
  limits: LicenceLimits | null;
  limitsExceeded: LimitsExceeded;
  /** Over the free tier (whatever the licence). */
  overFreeTier: boolean;
  /** A valid (or in-grace) licence whose own limits are not exceeded. */
  licensed: boolean;
  /** Enterprise features on: under the free tier, or licensed. */
  enterprise: boolean;
}

export function entitlementOf(usage: Usage, status: LicenceStatus): Entitlement {
  const inForce = status.state === "valid" || status.state === "grace";
  const limits = inForce ? status.licence.limits : FREE;
  const limitsExceeded = limits ? exceeded(usage, limits) : NONE_EXCEEDED;
  const overFreeTier = Object.values(exceeded(usage, FREE)).some(Boolean);
  const licensed = inForce && !Object.values(limitsExceeded).some(Boolean);
  return { usage, status, limits, limitsExceeded, overFreeTier, licensed, enterprise: licensed || !overFreeTier };
}

export async function entitlement(db?: Db): Promise<Entitlement> {
  const { usage, key } = await usageAndKey(db);
  return entitlementOf(usage, statusOfKey(key));
}

/** `license_info` of GET /info (defguard 1.6's LicenseInfo). */
export async function licenseInfo() {
  const e = await entitlement();
  const loaded = e.status.state === "valid" || e.status.state === "grace" || e.status.state === "expired";
  return {
    enterprise: e.enterprise,
    limits_exceeded: e.limitsExceeded,
    any_limit_exceeded: Object.values(e.limitsExceeded).some(Boolean),
    is_enterprise_free: !e.licensed && !e.overFreeTier,
    tier: loaded ? (e.status as { licence: Licence }).licence.tier : (null as string | null),
  };
}

/**
 * GET /enterprise_info (defguard 1.6.6): `{license_info: null}` without a usable licence (none
 * stored, or one that does not verify: defguard cannot load it either), else `{valid_until,
 * subscription, expired (past the grace period), limits_exceeded (the licence's own limits),
 * tier}`.
 */
export async function enterpriseInfo() {
  const { usage, key } = await usageAndKey();
  const s = statusOfKey(key);
  if (s.state === "none" || s.state === "invalid") return { license_info: null };
  const l = s.licence;
  return {
    license_info: {
      valid_until: l.valid_until,
      subscription: l.subscription,
      expired: s.state === "expired",
      limits_exceeded: l.limits ? Object.values(exceeded(usage, l.limits)).some(Boolean) : false,
      tier: l.tier,
    },
  };
}

/** GET /license (ours): the stored licence as the Settings page shows it. */
export async function licenceDetails() {
  const e = await entitlement();
  const s = e.status;
  const base = {
    state: s.state,
    error: s.state === "invalid" ? s.error : null,
    enterprise: e.enterprise,
    usage: { users: e.usage.users, devices: e.usage.devices, locations: e.usage.locations, network_devices: e.usage.networkDevices },
    limits: e.limits,
    limits_exceeded: e.limitsExceeded,
  };
  if (s.state === "none" || s.state === "invalid") {
    return { ...base, customer: null, tier: null, subscription: null, valid_until: null, grace_until: null, license_limits: null };
  }
  const l = s.licence;
  return { ...base, customer: l.customer, tier: l.tier, subscription: l.subscription, valid_until: l.valid_until, grace_until: graceUntil(l), license_limits: l.limits };
}

export const LICENSE_REQUIRED = "license_required";

const KIND_TEXT: Record<LimitKind, (u: Usage, l: LicenceLimits) => string> = {
  user: (u, l) => `users ${u.users}/${l.users}`,
  device: (u, l) => `user devices ${u.devices}/${l.devices}`,
  wireguard_network: (u, l) => `locations ${u.locations}/${l.locations}`,
  network_device: (u, l) => `network devices ${u.networkDevices}/${l.network_devices}`,
};

/** Why enterprise features are off, in one sentence naming what is exceeded. */
export function licenceRequiredMessage(e: Entitlement): string {
  const limits = e.limits ?? FREE;
  const over = (Object.keys(e.limitsExceeded) as LimitKind[]).filter((k) => e.limitsExceeded[k]).map((k) => KIND_TEXT[k](e.usage, limits));
  const state =
    e.status.state === "none" ? "no licence is installed"
    : e.status.state === "invalid" ? "the installed licence is not valid"
    : e.status.state === "expired" ? "the licence has expired"
    : "the licence's limits are exceeded";
  return `This is an enterprise feature: ${over.length ? `${over.join(", ")} exceed${over.length === 1 ? "s" : ""} the limits and ` : ""}${state}.`;
}

/**
 * The licence gate (routes declared `enterprise: true`, enforced by lib/http/route.ts, and
 * services that gate a part of a feature): 403 {msg, code: "license_required"} unless
 * enterprise features are on. Nothing is changed or deleted either way.
 */
export async function requireEnterprise(db?: Db): Promise<void> {
  const e = await entitlement(db);
  if (!e.enterprise) throw new AppError(403, licenceRequiredMessage(e), undefined, { code: LICENSE_REQUIRED });
}
