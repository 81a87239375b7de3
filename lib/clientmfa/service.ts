import "server-only";
import { and, eq, lt, sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { clientMfaSessions, deviceLocations, devices, locations, users } from "../db/schema";
import { AppError } from "../errors";
import { encryptSecret, randomToken, sha256hex } from "../crypto";
import { transaction, type Emit } from "../events";
import { recordActivity, SYSTEM_ACTOR, type Actor } from "../activity/service";
import { checkTotp, consumeClientMfaEmailCode, sendClientMfaEmailCode } from "../mfa/service";
import { getSettings } from "../settings/service";
import { smtpConfigured, SMTP_NOT_CONFIGURED } from "../mail/service";
import { generatePresharedKey } from "../wireguard/keys";
import { externalMfaAuthorizationUrl, externalMfaAvailable } from "./external";
import { MFA_METHOD, type ClientMfaFinishInput, type ClientMfaStartInput } from "./schema";

/**
 * MFA for VPN locations (location_mfa_mode "internal" or "external"), as defguard 1.6's proxy
 * serves it to desktop clients (docs/client-mfa.md):
 *
 * - POST /client-mfa/start {location_id, pubkey, method} checks the device, the location and
 *   the method, sends an e-mail code when asked, and opens a login of SESSION_SECONDS
 *   (client_mfa_sessions, token stored hashed) → {token}.
 * - POST /client-mfa/finish {token, code} checks the code; on success the device gets an MFA
 *   session in that location: is_authorized, authorized_at and a new preshared key (stored
 *   encrypted), which only the client receives → {preshared_key}. The gateways get the peer
 *   with the PSK through the domain event `device.location.authorized`.
 * - The job `endIdleMfaSessions` ends sessions without a handshake for the location's
 *   peer_disconnect_threshold: the peer leaves the gateways and the PSK is discarded.
 *
 * Error texts are defguard's (the proxy's clients show them).
 */
export const SESSION_SECONDS = 300;
/** Wrong codes one login may send before it is dropped (the client must start again). */
export const MAX_FAILED_ATTEMPTS = 5;

export const MSG = {
  locationNotFound: "location not found",
  mfaNotEnabled: "MFA not enabled for location",
  deviceNotFound: "device not found",
  networkDevice: "network devices do not use location MFA",
  unauthorized: "unauthorized",
  invalidMethod: "invalid MFA method selected",
  methodNotSupported: "selected MFA method not supported by location",
  methodNotAvailable: "selected MFA method not available",
  externalNotConfigured: "selected MFA method not available: no external OpenID provider is configured",
  invalidToken: "invalid token",
  sessionNotFound: "login session not found",
  totpMissing: "TOTP code not provided",
  emailMissing: "email MFA code not provided",
  oidcNotCompleted: "OIDC authentication not completed yet",
} as const;

const METHOD_NAME: Record<number, string> = { 0: "TOTP", 1: "email", 2: "OpenID", 3: "biometric", 4: "mobile approve" };

const bad = (msg: string, field?: string) => new AppError(400, msg, field);

type LocationRow = typeof locations.$inferSelect;
type DeviceRow = typeof devices.$inferSelect;

/** Whether the user may use the location: it has no allowed groups, or the user is in one. */
async function mayUse(tx: Tx, locationId: number, userId: number): Promise<boolean> {
  const r = await tx.execute<{ ok: boolean }>(sql`
    select (not exists (select 1 from location_allowed_groups lg where lg.location_id = ${locationId})
            or exists (select 1 from location_allowed_groups lg join group_users gu on gu.group_id = lg.group_id
                       where lg.location_id = ${locationId} and gu.user_id = ${userId})) ok`);
  return Boolean(r.rows[0]?.ok);
}

/**
 * POST /client-mfa/start: a login for this device and location → {token} (ClientMfaStartResponse);
 * with method 2 (external OpenID) also `url`, the provider's authorization URL for this login.
 */
export async function startClientMfa(input: ClientMfaStartInput): Promise<{ token: string; url?: string }> {
  const db = getDb();
  const [loc] = await db.select().from(locations).where(eq(locations.id, input.location_id));
  if (!loc) throw bad(MSG.locationNotFound, "location_id");
  if (loc.mfaMode === "disabled") throw bad(MSG.mfaNotEnabled, "location_id");
  const [device] = await db.select().from(devices).where(eq(devices.wireguardPubkey, input.pubkey));
  if (!device || !device.configured) throw bad(MSG.deviceNotFound, "pubkey");
  if (device.deviceType !== "user") throw bad(MSG.networkDevice, "pubkey");
  const [user] = await db.select().from(users).where(eq(users.id, device.userId));
  if (!user || !user.isActive) throw new AppError(401, MSG.unauthorized);
  // The device must have addresses in the location, and its owner may still use it.
  const [link] = await db
    .select({ id: deviceLocations.deviceId })
    .from(deviceLocations)
    .where(and(eq(deviceLocations.deviceId, device.id), eq(deviceLocations.locationId, loc.id)));
  if (!link || !(await mayUse(db, loc.id, user.id))) throw new AppError(401, MSG.unauthorized);

  const method = input.method;
  if (!Object.values(MFA_METHOD).includes(method as never)) throw bad(MSG.invalidMethod, "method");
  const internal = method === MFA_METHOD.TOTP || method === MFA_METHOD.EMAIL || method === MFA_METHOD.BIOMETRIC || method === MFA_METHOD.MOBILE_APPROVE;
  if (!(loc.mfaMode === "internal" ? internal : method === MFA_METHOD.OIDC)) throw bad(MSG.methodNotSupported, "method");
  switch (method) {
    case MFA_METHOD.TOTP:
      if (!user.totpEnabled) throw bad(MSG.methodNotAvailable, "method");
      break;
    case MFA_METHOD.EMAIL:
      if (!user.emailMfaEnabled) throw bad(MSG.methodNotAvailable, "method");
      if (!smtpConfigured(await getSettings(db))) throw bad(`${MSG.methodNotAvailable}: ${SMTP_NOT_CONFIGURED}`, "method");
      break;
    case MFA_METHOD.OIDC:
      if (!(await externalMfaAvailable())) throw bad(MSG.externalNotConfigured, "method");
      break;
    default:
      // Biometric and mobile approval need defguard's mobile app; not offered here.
      throw bad(MSG.methodNotAvailable, "method");
  }

  const token = randomToken(32);
  // Before the login exists: a provider that cannot be reached leaves nothing behind.
  const url = method === MFA_METHOD.OIDC ? await externalMfaAuthorizationUrl(token) : undefined;
  await transaction(async (tx) => {
    // One login per device key: a new start replaces the previous one (defguard keeps them by key).
    const values = {
      tokenHash: sha256hex(token),
      deviceId: device.id,
      locationId: loc.id,
      userId: user.id,
      method,
      openidAuthCompleted: false,
      failedAttempts: 0,
      expiresAt: sql`now() + make_interval(secs => ${SESSION_SECONDS})` as unknown as Date,
      createdAt: sql`now()` as unknown as Date,
    };
    await tx
      .insert(clientMfaSessions)
      .values({ pubkey: input.pubkey, ...values })
      .onConflictDoUpdate({ target: clientMfaSessions.pubkey, set: values });
  });
  // After the login exists: a code that went out is always usable with this token.
  if (method === MFA_METHOD.EMAIL) await sendClientMfaEmailCode(user.id);
  return url ? { token, url } : { token };
}

/**
 * The external OpenID provider's callback confirmed the user of this login (method OIDC):
 * /client-mfa/finish may now complete it. Returns whether such a login exists.
 */
export async function completeExternalMfa(token: string, userId: number): Promise<boolean> {
  return transaction(async (tx) => {
    const r = await tx
      .update(clientMfaSessions)
      .set({ openidAuthCompleted: true })
      .where(and(eq(clientMfaSessions.tokenHash, sha256hex(token)), eq(clientMfaSessions.userId, userId), eq(clientMfaSessions.method, MFA_METHOD.OIDC)))
      .returning({ pubkey: clientMfaSessions.pubkey });
    return r.length > 0;
  });
}

async function failed(tx: Tx, actor: Actor, loc: LocationRow, device: DeviceRow, method: number, reason: string) {
  await recordActivity(tx, actor, {
    event: "vpn_client_mfa_failed",
    module: "vpn",
    location: loc.name,
    device: device.name,
    description: `MFA for ${device.name} in ${loc.name} failed (${METHOD_NAME[method] ?? method}): ${reason}`,
  });
}

/**
 * POST /client-mfa/finish: check the code of a login; on success the device's MFA session in
 * the location → {preshared_key} (ClientMfaFinishResponse). A wrong code is logged
 * (vpn_client_mfa_failed) and answered 401 "unauthorized"; the login stays for another try,
 * up to MAX_FAILED_ATTEMPTS. A login is spent by its success.
 */
export async function finishClientMfa(input: ClientMfaFinishInput, ip: string | null): Promise<{ preshared_key: string }> {
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(input.token)) throw bad(MSG.invalidToken, "token");
  const hash = sha256hex(input.token);
  const outcome = await transaction(async (tx, emit): Promise<{ ok: { preshared_key: string } } | { error: AppError }> => {
    const [s] = await tx.select().from(clientMfaSessions).where(eq(clientMfaSessions.tokenHash, hash)).for("update");
    if (!s) return { error: bad(MSG.sessionNotFound, "token") };
    if (s.expiresAt.getTime() <= Date.now()) {
      await tx.delete(clientMfaSessions).where(eq(clientMfaSessions.pubkey, s.pubkey));
      return { error: bad(MSG.invalidToken, "token") };
    }
    const [loc] = await tx.select().from(locations).where(eq(locations.id, s.locationId));
    const [device] = await tx.select().from(devices).where(eq(devices.id, s.deviceId));
    const [user] = await tx.select().from(users).where(eq(users.id, s.userId));
    if (!loc || !device || !user) return { error: bad(MSG.sessionNotFound, "token") };
    const actor: Actor = { userId: user.id, username: user.username, ip };

    let failure: { reason: string; error: AppError } | null = null;
    switch (s.method) {
      case MFA_METHOD.TOTP:
        if (!input.code) failure = { reason: "TOTP code not provided in request", error: bad(MSG.totpMissing, "code") };
        else if (!(await checkTotp(tx, user.id, input.code))) failure = { reason: "invalid TOTP code", error: new AppError(401, MSG.unauthorized) };
        break;
      case MFA_METHOD.EMAIL:
        if (!input.code) failure = { reason: "email MFA code not provided in request", error: bad(MSG.emailMissing, "code") };
        else if (!(await consumeClientMfaEmailCode(tx, user.id, input.code))) failure = { reason: "invalid email MFA code", error: new AppError(401, MSG.unauthorized) };
        break;
      case MFA_METHOD.OIDC:
        if (!s.openidAuthCompleted) failure = { reason: "OpenID authentication not completed yet", error: new AppError(428, MSG.oidcNotCompleted) };
        break;
      default:
        failure = { reason: "unsupported method", error: bad(MSG.methodNotAvailable) };
    }
    if (failure) {
      await failed(tx, actor, loc, device, s.method, failure.reason);
      if (failure.error.status === 401) {
        if (s.failedAttempts + 1 >= MAX_FAILED_ATTEMPTS) await tx.delete(clientMfaSessions).where(eq(clientMfaSessions.pubkey, s.pubkey));
        else await tx.update(clientMfaSessions).set({ failedAttempts: s.failedAttempts + 1 }).where(eq(clientMfaSessions.pubkey, s.pubkey));
      }
      return { error: failure.error };
    }
    // Things may have changed since the start: the location's mode, the user's access.
    if (loc.mfaMode === "disabled") return { error: bad(MSG.mfaNotEnabled) };
    if (!user.isActive || !(await mayUse(tx, loc.id, user.id))) return { error: new AppError(401, MSG.unauthorized) };

    const psk = generatePresharedKey();
    const linked = await tx
      .update(deviceLocations)
      .set({ isAuthorized: true, authorizedAt: sql`now()` as unknown as Date, presharedKey: encryptSecret(psk) })
      .where(and(eq(deviceLocations.deviceId, device.id), eq(deviceLocations.locationId, loc.id)))
      .returning({ id: deviceLocations.deviceId });
    if (!linked.length) return { error: new AppError(401, MSG.unauthorized) };
    await tx.delete(clientMfaSessions).where(eq(clientMfaSessions.pubkey, s.pubkey));
    await recordActivity(tx, actor, {
      event: "vpn_client_connected_mfa",
      module: "vpn",
      location: loc.name,
      device: device.name,
      description: `${device.name} connected to ${loc.name} with MFA (${METHOD_NAME[s.method]})`,
    });
    emit({ type: "device.location.authorized", deviceId: device.id, locationId: loc.id });
    return { ok: { preshared_key: psk } };
  });
  if ("error" in outcome) throw outcome.error;
  return outcome.ok;
}

/** End one device's MFA session in a location (the peer leaves the gateways, the PSK is discarded). */
async function endSession(tx: Tx, emit: Emit, row: { device_id: number; location_id: number; location: string; device: string; user_id: number; username: string; endpoint: string | null }, why: string) {
  emit({ type: "device.location.deauthorized", deviceId: row.device_id, locationId: row.location_id });
  const ip = row.endpoint ? row.endpoint.replace(/:\d+$/, "").replace(/^\[|\]$/g, "") : null;
  await recordActivity(tx, { ...SYSTEM_ACTOR, userId: row.user_id, username: row.username, ip }, {
    event: "vpn_client_disconnected_mfa",
    module: "vpn",
    location: row.location,
    device: row.device,
    description: `MFA session of ${row.device} in ${row.location} ended: ${why}`,
  });
}

/**
 * Job "client-mfa-sessions": MFA sessions whose device has not made a handshake for the
 * location's peer_disconnect_threshold (and that are at least that old) end; sessions of
 * locations no longer using MFA are dropped the same way; MFA logins past their deadline are
 * deleted. Idempotent; rows a stats write holds are skipped until the next run.
 */
export async function endIdleMfaSessions(): Promise<{ ended: number; loginsPruned: number }> {
  const ended = await transaction(async (tx, emit) => {
    const r = await tx.execute<{ device_id: number; location_id: number; location: string; device: string; user_id: number; username: string; endpoint: string | null; mfa_off: boolean }>(sql`
      with idle as (
        select dl.device_id, dl.location_id, l.location_mfa_mode = 'disabled' mfa_off
        from device_locations dl join locations l on l.id = dl.location_id
        where dl.is_authorized
          and (l.location_mfa_mode = 'disabled'
               or (dl.authorized_at < now() - make_interval(secs => l.peer_disconnect_threshold)
                   and (dl.last_handshake is null or dl.last_handshake < now() - make_interval(secs => l.peer_disconnect_threshold))))
        order by dl.device_id, dl.location_id
        for update of dl skip locked
      ),
      upd as (
        update device_locations dl set is_authorized = false, preshared_key = null
          from idle i where dl.device_id = i.device_id and dl.location_id = i.location_id
        returning dl.device_id, dl.location_id, dl.last_endpoint, i.mfa_off
      )
      select u.device_id, u.location_id, l.name location, d.name device, us.id user_id, us.username, u.last_endpoint endpoint, u.mfa_off
      from upd u join devices d on d.id = u.device_id join locations l on l.id = u.location_id join users us on us.id = d.user_id`);
    for (const row of r.rows) {
      // A location that stopped using MFA has every device as a plain peer already (its
      // location.changed update): the leftover sessions are only cleared.
      if (row.mfa_off) emit({ type: "device.location.deauthorized", deviceId: row.device_id, locationId: row.location_id });
      else await endSession(tx, emit, row, "no handshake within the disconnect threshold");
    }
    return r.rows.filter((x) => !x.mfa_off).length;
  });
  const pruned = await transaction((tx) => tx.delete(clientMfaSessions).where(lt(clientMfaSessions.expiresAt, sql`now()`)).returning({ k: clientMfaSessions.pubkey }));
  return { ended, loginsPruned: pruned.length };
}
