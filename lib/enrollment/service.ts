import "server-only";
import { and, eq, isNull, lt, or, sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { deviceLocations, devices, enrollmentTokens, locations, users } from "../db/schema";
import { AppError, badRequest, notFound } from "../errors";
import { enrollmentTokenTimeout, publicUrl, secret } from "../config";
import { hmac, randomToken, safeEqual, sha256hex } from "../crypto";
import { recordActivity, type Actor } from "../activity/service";
import { transaction } from "../events";
import { isAdminSql } from "../auth/session";
import { stripNulls } from "../api/client";
import { licenseInfo } from "../enterprise/service";
import { getSettings, readEnterpriseSettings, smtpConfigured, type EnterpriseSettings } from "../settings/service";
import { deviceConfig } from "../devices/service";
import { assertKeyFree, insertNetworkDevice } from "../devices/network";
import type { LocationRow } from "../locations/service";
import type { NetworkDeviceCliInput } from "../devices/schema";
import type { EnrollmentCreateDeviceInput } from "./schema";

/**
 * Enrolment tokens (stored hashed, shown once). Today one kind: "network_device", the
 * token `dg` (the defguard CLI) uses to give a network device waiting for it its public key.
 *
 * Flow, as with defguard's proxy: the admin starts the setup (POST /device/network/start_cli),
 * the CLI posts the token to /enrollment/start and gets a session cookie, then posts the public
 * key it made to /enrollment/create_device and receives the device's configuration.
 */
export const TOKEN_KIND_NETWORK_DEVICE = "network_device";

export const MSG = {
  invalidToken: "invalid token",
  tokenExpired: "token expired",
  tokenUsed: "token already used",
  noSession: "no enrollment session: start with /enrollment/start or send the token",
  deviceNotFound: "network device not found",
  notNetworkDevice: "device is not a network device",
  alreadyConfigured: "network device is already configured",
} as const;

const unauthorized = (msg: string) => new AppError(401, msg);

type TokenRow = typeof enrollmentTokens.$inferSelect;

/** API answer of start_cli: the token (shown once) and where `dg` should send it. */
export interface CliToken {
  enrollment_token: string;
  enrollment_url: string;
  /** When the token stops working (ISO). Not in defguard's answer; the console shows it. */
  expires_at: string;
}

/**
 * A new CLI token for a network device. Earlier unused tokens of the device stop working:
 * the newest command is the one that counts.
 */
async function issueNetworkDeviceToken(tx: Tx, deviceId: number, userId: number, adminId: number | null): Promise<CliToken> {
  await tx.delete(enrollmentTokens).where(and(eq(enrollmentTokens.deviceId, deviceId), isNull(enrollmentTokens.usedAt)));
  const token = randomToken(32);
  const expiresAt = new Date(Date.now() + enrollmentTokenTimeout() * 1000);
  const [owner] = await tx.select({ email: users.email }).from(users).where(eq(users.id, userId));
  await tx.insert(enrollmentTokens).values({
    tokenHash: sha256hex(token),
    kind: TOKEN_KIND_NETWORK_DEVICE,
    userId,
    adminId,
    deviceId,
    email: owner?.email ?? null,
    expiresAt,
  });
  return { enrollment_token: token, enrollment_url: publicUrl(), expires_at: expiresAt.toISOString() };
}

/**
 * POST /device/network/start_cli: a network device without a key (configured = false), its
 * addresses checked and reserved exactly as POST /device/network does, and a CLI token.
 */
export async function startNetworkDeviceCli(actor: Actor, input: NetworkDeviceCliInput): Promise<CliToken> {
  return transaction(async (tx, emit) => {
    const { row } = await insertNetworkDevice(tx, emit, actor, input, null);
    return issueNetworkDeviceToken(tx, row.id, actor.userId!, actor.userId);
  });
}

/** POST /device/network/start_cli/{id}: a new CLI token for a network device still waiting for one. */
export async function newNetworkDeviceCliToken(actor: Actor, deviceId: number): Promise<CliToken> {
  return transaction(async (tx) => {
    const [d] = await tx.select().from(devices).where(eq(devices.id, deviceId)).for("update");
    if (!d) throw notFound(MSG.deviceNotFound);
    if (d.deviceType !== "network") throw badRequest(MSG.notNetworkDevice);
    if (d.configured) throw badRequest(MSG.alreadyConfigured);
    const [link] = await tx
      .select({ name: locations.name })
      .from(deviceLocations)
      .innerJoin(locations, eq(locations.id, deviceLocations.locationId))
      .where(eq(deviceLocations.deviceId, d.id));
    // As defguard: the token belongs to the admin who added the device; the caller issued it.
    const token = await issueNetworkDeviceToken(tx, d.id, d.userId, actor.userId);
    await recordActivity(tx, actor, {
      event: "enrollment_token_added",
      device: d.name,
      location: link?.name ?? null,
      description: `New defguard CLI token for network device ${d.name}`,
    });
    return token;
  });
}

// ------------------------------------------------------------------------------ the session

/**
 * The enrolment session cookie (defguard's proxy calls it `defguard_proxy`): the token's hash
 * and expiry, signed with the instance secret. The token itself is never in it.
 */
export interface EnrollmentSession {
  value: string;
  /** Seconds the cookie should live: until the token expires. */
  maxAge: number;
}

const sessionMac = (hash: string, exp: number) => hmac(secret("secretKey"), `enrollment-session:${hash}.${exp}`);

export function signEnrollmentSession(tokenHash: string, expiresAt: Date): EnrollmentSession {
  const exp = Math.floor(expiresAt.getTime() / 1000);
  return { value: `${tokenHash}.${exp}.${sessionMac(tokenHash, exp)}`, maxAge: Math.max(0, exp - Math.floor(Date.now() / 1000)) };
}

/** The token hash a session cookie holds, or null when it is missing, forged or expired. */
export function verifyEnrollmentSession(value: string | undefined): string | null {
  if (!value) return null;
  const [hash, expText, mac, extra] = value.split(".");
  if (!hash || !expText || !mac || extra !== undefined || !/^[0-9a-f]{64}$/.test(hash) || !/^\d{1,12}$/.test(expText)) return null;
  const exp = Number(expText);
  if (!safeEqual(mac, sessionMac(hash, exp))) return null;
  if (exp * 1000 <= Date.now()) return null;
  return hash;
}

/** A token that may still be used, or the 401 saying why not. */
function assertUsable(t: TokenRow | undefined): asserts t is TokenRow {
  if (!t || t.kind !== TOKEN_KIND_NETWORK_DEVICE || t.deviceId === null) throw unauthorized(MSG.invalidToken);
  if (t.usedAt) throw unauthorized(MSG.tokenUsed);
  if (t.expiresAt.getTime() <= Date.now()) throw unauthorized(MSG.tokenExpired);
}

// ------------------------------------------------------------------------- wire shapes

const unixSeconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** A stable id of this instance, derived from its secret key (UUID-shaped, as defguard's). */
export function instanceId(): string {
  const h = sha256hex(`defguard-instance-id:${secret("secretKey")}`);
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** defguard proxy InstanceInfo. This console serves the enrolment endpoints itself: both URLs are its own. */
/** defguard's ClientTrafficPolicy as its protobuf enum number. */
const TRAFFIC_POLICY_NUMBER = { none: 0, disable_all_traffic: 1, force_all_traffic: 2 } as const;

async function instanceInfo(tx: Tx, username: string) {
  const [s, licence, e] = await Promise.all([getSettings(tx), licenseInfo(), readEnterpriseSettings(tx)]);
  return {
    id: instanceId(),
    name: s.instanceName,
    url: publicUrl(),
    proxy_url: publicUrl(),
    username,
    enterprise_enabled: licence.enterprise,
    disable_all_traffic: e.client_traffic_policy === "disable_all_traffic",
    client_traffic_policy: TRAFFIC_POLICY_NUMBER[e.client_traffic_policy],
  };
}

const MFA_MODE_NUMBER: Record<string, number> = { disabled: 1, internal: 2, external: 3 };

/** defguard proxy DeviceConfig: addresses and allowed IPs as comma lists, `pubkey` the location's. */
function proxyDeviceConfig(loc: LocationRow, ips: string[], policy: EnterpriseSettings["client_traffic_policy"]) {
  const c = deviceConfig(loc, ips, null, null, policy);
  return {
    network_id: c.network_id,
    network_name: c.network_name,
    config: c.config,
    endpoint: c.endpoint,
    assigned_ip: ips.join(","),
    pubkey: c.pubkey,
    allowed_ips: c.allowed_ips.join(","),
    dns: c.dns,
    mfa_enabled: false,
    keepalive_interval: c.keepalive_interval,
    location_mfa_mode: MFA_MODE_NUMBER[loc.mfaMode] ?? 1,
  };
}

async function userRow(tx: Tx, id: number) {
  const [u] = await tx
    .select({
      id: users.id,
      username: users.username,
      firstName: users.firstName,
      lastName: users.lastName,
      email: users.email,
      phone: users.phone,
      isActive: users.isActive,
      enrolled: users.enrolled,
      isAdmin: isAdminSql(),
    })
    .from(users)
    .where(eq(users.id, id));
  return u;
}

// --------------------------------------------------------------------------- endpoints

/**
 * POST /enrollment/start {token}: what the token is for (defguard proxy EnrollmentStartResponse)
 * and the session that lets /enrollment/create_device go on without the token.
 */
export async function startEnrollment(token: string) {
  const db = getDb();
  const hash = sha256hex(token);
  const [t] = await db.select().from(enrollmentTokens).where(eq(enrollmentTokens.tokenHash, hash));
  assertUsable(t);
  const [d] = await db.select().from(devices).where(eq(devices.id, t.deviceId!));
  if (!d || d.deviceType !== "network") throw unauthorized(MSG.invalidToken);
  if (d.configured) throw unauthorized(MSG.tokenUsed);
  const user = await userRow(db, t.userId);
  if (!user) throw unauthorized(MSG.invalidToken);
  const admin = (t.adminId !== null ? await userRow(db, t.adminId) : undefined) ?? user;
  const [s, e] = await Promise.all([getSettings(db), readEnterpriseSettings(db)]);
  const body = stripNulls({
    admin: { name: `${admin.firstName} ${admin.lastName}`.trim() || admin.username, phone_number: admin.phone, email: admin.email },
    user: {
      first_name: user.firstName,
      last_name: user.lastName,
      login: user.username,
      email: user.email,
      phone_number: user.phone,
      is_active: user.isActive,
      device_names: [] as string[],
      enrolled: user.enrolled,
      is_admin: user.isAdmin,
    },
    deadline_timestamp: unixSeconds(t.expiresAt),
    final_page_content: "",
    instance: await instanceInfo(db, user.username),
    settings: {
      vpn_setup_optional: true,
      only_client_activation: e.only_client_activation,
      admin_device_management: e.admin_device_management,
      smtp_configured: smtpConfigured(s),
      mfa_required: s.requireMfa,
    },
  });
  return { body, session: signEnrollmentSession(hash, t.expiresAt) };
}

/**
 * POST /enrollment/create_device {name, pubkey, token?}: the CLI's public key for the network
 * device the token (or the session of /enrollment/start) names. The token is spent, the device
 * becomes configured, and gateways get the new peer. Answers DeviceConfigResponse.
 */
export async function enrollNetworkDevice(sessionHash: string | null, input: EnrollmentCreateDeviceInput, ip: string | null) {
  const hash = input.token ? sha256hex(input.token) : sessionHash;
  if (!hash) throw unauthorized(MSG.noSession);
  return transaction(async (tx, emit) => {
    const [t] = await tx.select().from(enrollmentTokens).where(eq(enrollmentTokens.tokenHash, hash)).for("update");
    assertUsable(t);
    const [d] = await tx.select().from(devices).where(eq(devices.id, t.deviceId!)).for("update");
    if (!d || d.deviceType !== "network") throw unauthorized(MSG.invalidToken);
    if (d.configured) throw badRequest(MSG.alreadyConfigured);
    await assertKeyFree(tx, input.pubkey, d.id, "pubkey");
    const [u] = await tx.update(devices).set({ wireguardPubkey: input.pubkey, configured: true }).where(eq(devices.id, d.id)).returning();
    await tx.update(enrollmentTokens).set({ usedAt: sql`now()` }).where(eq(enrollmentTokens.tokenHash, hash));
    // Any other token of the device is void now.
    await tx.delete(enrollmentTokens).where(and(eq(enrollmentTokens.deviceId, d.id), isNull(enrollmentTokens.usedAt)));
    const links = await tx
      .select({ ips: deviceLocations.ips, loc: locations })
      .from(deviceLocations)
      .innerJoin(locations, eq(locations.id, deviceLocations.locationId))
      .where(eq(deviceLocations.deviceId, d.id));
    const owner = await userRow(tx, t.userId);
    const actor: Actor = { userId: t.userId, username: owner?.username ?? "unknown", ip };
    await recordActivity(tx, actor, {
      event: "network_device_configured",
      module: "enrollment",
      device: u.name,
      location: links[0]?.loc.name ?? null,
      description: `Network device ${u.name} configured with the defguard CLI`,
    });
    for (const l of links) emit({ type: "device.location.added", deviceId: d.id, locationId: l.loc.id });
    const policy = (await readEnterpriseSettings(tx)).client_traffic_policy;
    return stripNulls({
      device: { id: u.id, name: u.name, pubkey: input.pubkey, user_id: u.userId, created_at: unixSeconds(u.createdAt) },
      configs: links.map((l) => proxyDeviceConfig(l.loc, l.ips, policy)),
      instance: await instanceInfo(tx, owner?.username ?? ""),
    });
  });
}

/**
 * Hourly clean-up: tokens that expired, or were used, more than a day ago. (The activity log
 * keeps the record; the day lets a late `dg` run still get "token expired"/"already used".)
 */
export async function pruneEnrollmentTokens(): Promise<number> {
  const r = await getDb()
    .delete(enrollmentTokens)
    .where(or(lt(enrollmentTokens.expiresAt, sql`now() - interval '1 day'`), lt(enrollmentTokens.usedAt, sql`now() - interval '1 day'`)));
  return r.rowCount ?? 0;
}
