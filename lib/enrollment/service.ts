import "server-only";
import { and, asc, eq, isNull, lt, or, sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { deviceLocations, devices, enrollmentTokens, locations, mobileAuthKeys, pollingTokens, users } from "../db/schema";
import { AppError, badRequest, notFound } from "../errors";
import { enrollmentSessionTimeout, enrollmentTokenTimeout, publicUrl, secret } from "../config";
import { hmac, randomToken, safeEqual, sha256hex } from "../crypto";
import { recordActivity, type Actor } from "../activity/service";
import { transaction } from "../events";
import { isAdminSql } from "../auth/session";
import { hashPassword } from "../auth/password";
import { stripNulls } from "../api/client";
import { zodMessage } from "../zod-message";
import { licenseInfo } from "../enterprise/service";
import { DEFAULT_WELCOME_EMAIL_SUBJECT, DEFAULT_WELCOME_MESSAGE, getSettings, readEnterpriseSettings, smtpConfigured, type EnterpriseSettings, type Settings } from "../settings/service";
import { sendMail, SMTP_NOT_CONFIGURED } from "../mail/service";
import { writeLdapPassword } from "../ldap/password";
import { deviceConfig, insertUserDevice } from "../devices/service";
import { assertKeyFree, insertNetworkDevice } from "../devices/network";
import { deviceNameSchema } from "../devices/schema";
import type { LocationRow } from "../locations/service";
import type { NetworkDeviceCliInput } from "../devices/schema";
import type { ActivateUserInput, EnrollmentCreateDeviceInput, NetworkInfoInput, RegisterMfaFinishInput, RegisterMfaStartInput, RegisterMobileInput, StartUserEnrollmentInput, WelcomeTestInput } from "./schema";
import { emailEnable, emailInit, totpEnable, totpInit } from "../mfa/service";
import { desktopStartMail, enrollmentCompletedAdminMail, enrollmentStartMail, newDeviceMail, renderWelcome, welcomeMail, type WelcomeContext } from "./mail";
import type { Mail } from "../mail/service";

/**
 * Enrolment tokens (stored hashed, shown once), two kinds:
 *
 * - "network_device": the token `dg` (the defguard CLI) uses to give a network device waiting
 *   for it its public key. The admin starts the setup (POST /device/network/start_cli), the CLI
 *   posts the token to /enrollment/start and gets a session cookie, then posts the public key
 *   it made to /enrollment/create_device and receives the device's configuration.
 * - "enrollment": a user's enrolment token (POST /user/{username}/start_enrollment, for a user
 *   without a password) or desktop-client activation token (POST /user/{username}/start_desktop,
 *   for an enrolled user). As in defguard, /enrollment/start opens a session of
 *   `enrollmentSessionTimeout()` seconds (used_at, session_ends_at); within it the client may
 *   resume with the token, add devices (/create_device), fetch a device's configuration
 *   (/network_info) and set the password (/activate_user, which ends the session). After the
 *   session the token is spent. A new token of a user voids the user's unused ones.
 */
export const TOKEN_KIND_NETWORK_DEVICE = "network_device";
export const TOKEN_KIND_ENROLLMENT = "enrollment";

export const MSG = {
  invalidToken: "invalid token",
  tokenExpired: "token expired",
  tokenUsed: "token already used",
  noSession: "no enrollment session: start with /enrollment/start or send the token",
  deviceNotFound: "network device not found",
  notNetworkDevice: "device is not a network device",
  alreadyConfigured: "network device is already configured",
  sessionExpired: "enrollment session expired: start again with the token",
  userDisabled: "user is disabled",
  userNotFound: "user not found",
  alreadyActive: "user is already enrolled: start a desktop activation instead",
  notEnrolled: "user is not enrolled yet: start the enrollment instead",
  emailMissing: "Email notification is enabled, but email was not provided",
  alreadyActivated: "user already activated",
  noDeviceName: "Cannot add a new device with no name",
  deviceDisabledUser: "can't add device to disabled user",
  tokenNotForDevice: "enrollment token is not valid for specified device",
  pollInvalid: "invalid token",
  userInactive: "user inactive",
  enterpriseRequired: "Enterprise features are not enabled",
  notFoundDevice: "device not found",
  adminOnly: "only an administrator can manage devices",
  alreadyEnrolled: "User is already enrolled",
  methodEnabled: "Method already enabled",
  mfaEnabled: "Mfa already enabled on the account",
  totpInvalid: "Code invalid",
  emailInvalid: "Email code invalid",
  mobileDeviceNotFound: "Device with given public key doesn't exist",
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

/** What a session cookie is for; part of its MAC, so one kind cannot stand in for the other. */
type SessionPurpose = "enrollment-session" | "password-reset-session";

const sessionMac = (purpose: SessionPurpose, hash: string, exp: number) => hmac(secret("secretKey"), `${purpose}:${hash}.${exp}`);

function signSession(purpose: SessionPurpose, tokenHash: string, expiresAt: Date): EnrollmentSession {
  const exp = Math.floor(expiresAt.getTime() / 1000);
  return { value: `${tokenHash}.${exp}.${sessionMac(purpose, tokenHash, exp)}`, maxAge: Math.max(0, exp - Math.floor(Date.now() / 1000)) };
}

function verifySession(purpose: SessionPurpose, value: string | undefined): string | null {
  if (!value) return null;
  const [hash, expText, mac, extra] = value.split(".");
  if (!hash || !expText || !mac || extra !== undefined || !/^[0-9a-f]{64}$/.test(hash) || !/^\d{1,12}$/.test(expText)) return null;
  const exp = Number(expText);
  if (!safeEqual(mac, sessionMac(purpose, hash, exp))) return null;
  if (exp * 1000 <= Date.now()) return null;
  return hash;
}

export const signEnrollmentSession = (tokenHash: string, expiresAt: Date) => signSession("enrollment-session", tokenHash, expiresAt);
/** The token hash a session cookie holds, or null when it is missing, forged or expired. */
export const verifyEnrollmentSession = (value: string | undefined) => verifySession("enrollment-session", value);
export const signPasswordResetSession = (tokenHash: string, expiresAt: Date) => signSession("password-reset-session", tokenHash, expiresAt);
export const verifyPasswordResetSession = (value: string | undefined) => verifySession("password-reset-session", value);

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
    // Deprecated in defguard 1.5 in favour of location_mfa_mode; still read by older clients.
    mfa_enabled: loc.mfaMode === "internal",
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
      hasPassword: sql<boolean>`${users.passwordHash} is not null`,
      isAdmin: isAdminSql(),
    })
    .from(users)
    .where(eq(users.id, id));
  return u;
}
type UserRow = NonNullable<Awaited<ReturnType<typeof userRow>>>;

const personName = (u: { firstName: string; lastName: string; username: string }) => `${u.firstName} ${u.lastName}`.trim() || u.username;

/** The fields the welcome texts may use ({{ first_name }} …, as defguard's templates). */
function welcomeContext(user: UserRow, admin: UserRow | undefined): WelcomeContext {
  return {
    first_name: user.firstName,
    last_name: user.lastName,
    username: user.username,
    defguard_url: publicUrl(),
    admin_first_name: admin?.firstName ?? "",
    admin_last_name: admin?.lastName ?? "",
    admin_email: admin?.email ?? "",
    admin_phone: admin?.phone ?? "",
  };
}

async function deviceNames(tx: Tx, userId: number): Promise<string[]> {
  const rows = await tx
    .select({ name: devices.name })
    .from(devices)
    .where(and(eq(devices.userId, userId), eq(devices.deviceType, "user")))
    .orderBy(asc(devices.name));
  return rows.map((r) => r.name);
}

/**
 * Whether setting up MFA is part of the user's enrolment: the instance requires MFA for every
 * account (settings.require_mfa), or a location the user may use (no allowed groups, or a member
 * of one) lets devices in only after the built-in MFA (location_mfa_mode internal). defguard
 * looks at every location of the instance; a location the user cannot reach asks nothing of them.
 */
export async function enrollmentMfaRequired(tx: Tx, userId: number, s: Pick<Settings, "requireMfa">): Promise<boolean> {
  if (s.requireMfa) return true;
  const r = await tx.execute<{ internal: boolean }>(sql`
    select exists(
      select 1 from locations l
      where l.location_mfa_mode = 'internal' and (
        not exists (select 1 from location_allowed_groups lg where lg.location_id = l.id)
        or exists (select 1 from location_allowed_groups lg join group_users gu on gu.group_id = lg.group_id
                   where lg.location_id = l.id and gu.user_id = ${userId}))) internal`);
  return Boolean(r.rows[0]?.internal);
}

/** defguard proxy EnrollmentStartResponse. */
async function startResponse(tx: Tx, t: TokenRow, user: UserRow, deadline: Date, s: Settings, forUser: boolean) {
  const admin = (t.adminId !== null ? await userRow(tx, t.adminId) : undefined) ?? (forUser ? undefined : user);
  const mfaRequired = await enrollmentMfaRequired(tx, user.id, s);
  // The enterprise settings in force (the defaults while enterprise features are not available).
  const e = await readEnterpriseSettings(tx);
  return stripNulls({
    admin: admin ? { name: personName(admin), phone_number: admin.phone, email: admin.email } : null,
    user: {
      first_name: user.firstName,
      last_name: user.lastName,
      login: user.username,
      email: user.email,
      phone_number: user.phone,
      is_active: user.isActive,
      device_names: forUser ? await deviceNames(tx, user.id) : [],
      enrolled: user.enrolled,
      is_admin: user.isAdmin,
    },
    deadline_timestamp: unixSeconds(deadline),
    final_page_content: forUser ? renderWelcome(s.enrollmentWelcomeMessage ?? DEFAULT_WELCOME_MESSAGE, welcomeContext(user, admin)) : "",
    instance: await instanceInfo(tx, user.username),
    settings: {
      vpn_setup_optional: forUser ? s.enrollmentVpnStepOptional : true,
      only_client_activation: forUser ? e.only_client_activation : false,
      admin_device_management: forUser ? e.admin_device_management : false,
      smtp_configured: smtpConfigured(s),
      mfa_required: mfaRequired,
    },
  });
}

// ------------------------------------------------------------------- starting (admin API)

/** Answer of start_enrollment / start_desktop (defguard: {enrollment_token, enrollment_url}). */
export interface UserToken {
  enrollment_token: string;
  enrollment_url: string;
}

async function lockUserByName(tx: Tx, username: string) {
  const [u] = await tx.select().from(users).where(sql`lower(${users.username}) = lower(${username})`).for("update");
  if (!u) throw notFound(`user ${username} not found`);
  return u;
}

/** A new "enrollment" token for a user; the user's unused ones stop working. */
async function issueUserToken(tx: Tx, userId: number, adminId: number | null, email: string | null): Promise<{ token: string; expiresAt: Date }> {
  await tx
    .delete(enrollmentTokens)
    .where(and(eq(enrollmentTokens.userId, userId), eq(enrollmentTokens.kind, TOKEN_KIND_ENROLLMENT), isNull(enrollmentTokens.usedAt)));
  const token = randomToken(32);
  const expiresAt = new Date(Date.now() + enrollmentTokenTimeout() * 1000);
  await tx.insert(enrollmentTokens).values({ tokenHash: sha256hex(token), kind: TOKEN_KIND_ENROLLMENT, userId, adminId, email, expiresAt });
  return { token, expiresAt };
}

/** Link of the console's own enrolment pages for a token. */
export const enrollmentPageUrl = (token: string) => `${publicUrl()}/enroll?token=${encodeURIComponent(token)}`;

/**
 * POST /user/{username}/start_enrollment: an enrolment token for a user who has no password
 * yet, e-mailed to `email` when asked (sent last in the transaction: a failed send keeps
 * nothing).
 */
export async function startUserEnrollment(actor: Actor, username: string, input: StartUserEnrollmentInput): Promise<UserToken> {
  const s = await getSettings();
  return transaction(async (tx) => {
    if (input.send_enrollment_notification && !input.email) throw badRequest(MSG.emailMissing, "email");
    const u = await lockUserByName(tx, username);
    if (!u.isActive) throw badRequest(MSG.userDisabled);
    if (u.passwordHash) throw badRequest(MSG.alreadyActive);
    if (input.send_enrollment_notification && !smtpConfigured(s)) throw badRequest(SMTP_NOT_CONFIGURED);
    const { token, expiresAt } = await issueUserToken(tx, u.id, actor.userId, input.email);
    await recordActivity(tx, actor, { event: "enrollment_token_added", description: `Enrollment started for ${u.username}` });
    if (input.send_enrollment_notification && input.email) {
      const user = (await userRow(tx, u.id))!;
      const admin = actor.userId !== null ? await userRow(tx, actor.userId) : undefined;
      await sendMail({
        to: input.email,
        ...enrollmentStartMail({ instanceName: s.instanceName, url: publicUrl(), pageUrl: enrollmentPageUrl(token), token, expiresAt, ctx: welcomeContext(user, admin) }),
      });
    }
    return { enrollment_token: token, enrollment_url: publicUrl() };
  });
}

/**
 * Start enrolment for one user of a bulk action (lib/bulk), inside its transaction: a new token
 * (earlier unused ones stop working) and its log entry. Returns the message with the link for the
 * user's own address, which the caller sends after every user's token is written (last in the
 * transaction, so a failed send keeps nothing). The caller checks the user is active and has no
 * password yet, and that SMTP is configured.
 */
export async function issueEnrollmentForBulk(tx: Tx, actor: Actor, userId: number, s: Settings, admin: Awaited<ReturnType<typeof userRow>> | undefined): Promise<Mail> {
  const user = (await userRow(tx, userId))!;
  const { token, expiresAt } = await issueUserToken(tx, user.id, actor.userId, user.email);
  await recordActivity(tx, actor, { event: "enrollment_token_added", description: `Enrollment started for ${user.username}` });
  return {
    to: user.email,
    ...enrollmentStartMail({ instanceName: s.instanceName, url: publicUrl(), pageUrl: enrollmentPageUrl(token), token, expiresAt, ctx: welcomeContext(user, admin) }),
  };
}

/** The acting admin as the enrolment mails name them (issueEnrollmentForBulk). */
export async function enrollmentAdmin(tx: Tx, actor: Actor) {
  return actor.userId !== null ? await userRow(tx, actor.userId) : undefined;
}

/**
 * POST /user/{username}/start_desktop: a desktop-client activation token for an enrolled user
 * (admin, or the user for themselves), e-mailed to `email` or the user's address when asked.
 */
export async function startDesktopActivation(
  actor: Actor,
  username: string,
  input: StartUserEnrollmentInput,
  caller: { isAdmin: boolean },
): Promise<UserToken> {
  const s = await getSettings();
  // As defguard (CanManageDevices): with admin-only device management (in force) users cannot do it themselves.
  if (!caller.isAdmin && (await readEnterpriseSettings()).admin_device_management) throw new AppError(403, MSG.adminOnly);
  return transaction(async (tx) => {
    const u = await lockUserByName(tx, username);
    if (!u.isActive) throw badRequest(MSG.userDisabled);
    if (!u.enrolled) throw badRequest(MSG.notEnrolled);
    const email = input.email ?? u.email;
    if (input.send_enrollment_notification && !smtpConfigured(s)) throw badRequest(SMTP_NOT_CONFIGURED);
    const { token, expiresAt } = await issueUserToken(tx, u.id, actor.userId, email);
    await recordActivity(tx, actor, { event: "client_configuration_token_added", description: `Desktop client activation token for ${u.username}` });
    if (input.send_enrollment_notification) {
      await sendMail({ to: email, ...desktopStartMail({ instanceName: s.instanceName, url: publicUrl(), token, expiresAt, name: personName({ firstName: u.firstName, lastName: u.lastName, username: u.username }) }) });
    }
    return { enrollment_token: token, enrollment_url: publicUrl() };
  });
}

/**
 * POST /mail/test_welcome: the drafted welcome e-mail, with the sender standing in for both the
 * new user and the admin, to `to`. Logged as a test message; a failed send answers 503.
 */
export async function sendWelcomeTest(actor: Actor, input: WelcomeTestInput): Promise<void> {
  const s = await getSettings();
  if (!smtpConfigured(s)) throw badRequest(SMTP_NOT_CONFIGURED);
  await transaction(async (tx) => {
    const me = actor.userId !== null ? await userRow(tx, actor.userId) : undefined;
    if (!me) throw unauthorized("not signed in");
    const draft = { ...s, enrollmentUseWelcomeMessageAsEmail: false, enrollmentWelcomeEmail: input.content, enrollmentWelcomeEmailSubject: input.subject || null };
    await recordActivity(tx, actor, { event: "smtp_test_sent", description: `Test welcome e-mail sent to ${input.to}` });
    await sendMail({ to: input.to, ...welcomeMail(draft, welcomeContext(me, me), DEFAULT_WELCOME_MESSAGE, DEFAULT_WELCOME_EMAIL_SUBJECT) });
  });
}

// --------------------------------------------------------------------------- endpoints

/** Where a token stands, for /enrollment/start. */
function assertUserTokenStartable(t: TokenRow, now: number): void {
  if (t.usedAt === null) {
    if (t.expiresAt.getTime() <= now) throw unauthorized(MSG.tokenExpired);
    return;
  }
  if (!t.sessionEndsAt || t.sessionEndsAt.getTime() <= now) throw unauthorized(MSG.tokenUsed);
}

/**
 * POST /enrollment/start {token}: what the token is for (defguard proxy EnrollmentStartResponse)
 * and the session that lets the following calls go on without the token.
 */
export async function startEnrollment(token: string, ip: string | null = null) {
  const hash = sha256hex(token);
  const [t0] = await getDb().select().from(enrollmentTokens).where(eq(enrollmentTokens.tokenHash, hash));
  if (t0?.kind === TOKEN_KIND_ENROLLMENT) return startUserSession(hash, ip);
  const db = getDb();
  const t = t0;
  assertUsable(t);
  const [d] = await db.select().from(devices).where(eq(devices.id, t.deviceId!));
  if (!d || d.deviceType !== "network") throw unauthorized(MSG.invalidToken);
  if (d.configured) throw unauthorized(MSG.tokenUsed);
  const user = await userRow(db, t.userId);
  if (!user) throw unauthorized(MSG.invalidToken);
  const body = await startResponse(db, t, user, t.expiresAt, await getSettings(db), false);
  return { body, session: signEnrollmentSession(hash, t.expiresAt) };
}

async function startUserSession(hash: string, ip: string | null) {
  return transaction(async (tx) => {
    const [t] = await tx.select().from(enrollmentTokens).where(eq(enrollmentTokens.tokenHash, hash)).for("update");
    if (!t || t.kind !== TOKEN_KIND_ENROLLMENT) throw unauthorized(MSG.invalidToken);
    const user = await userRow(tx, t.userId);
    if (!user) throw unauthorized(MSG.invalidToken);
    if (!user.isActive) throw new AppError(403, MSG.userDisabled);
    const now = Date.now();
    assertUserTokenStartable(t, now);
    let ends = t.sessionEndsAt;
    if (t.usedAt === null) {
      ends = new Date(now + enrollmentSessionTimeout() * 1000);
      await tx.update(enrollmentTokens).set({ usedAt: new Date(now), sessionEndsAt: ends }).where(eq(enrollmentTokens.tokenHash, hash));
      await recordActivity(tx, { userId: user.id, username: user.username, ip }, {
        event: "enrollment_started",
        module: "enrollment",
        description: user.enrolled ? "Desktop client activation started" : "Enrollment started",
      });
    }
    const body = await startResponse(tx, t, user, ends!, await getSettings(tx), true);
    return { body, session: signEnrollmentSession(hash, ends!) };
  });
}

/** The "enrollment" token of a running session, locked; 401 when there is none. */
async function sessionToken(tx: Tx, hash: string | null): Promise<TokenRow> {
  if (!hash) throw unauthorized(MSG.noSession);
  const [t] = await tx.select().from(enrollmentTokens).where(eq(enrollmentTokens.tokenHash, hash)).for("update");
  if (!t || t.kind !== TOKEN_KIND_ENROLLMENT) throw unauthorized(MSG.invalidToken);
  if (t.usedAt === null) throw unauthorized(MSG.noSession);
  if (!t.sessionEndsAt || t.sessionEndsAt.getTime() <= Date.now()) throw unauthorized(MSG.sessionExpired);
  return t;
}

const hashOf = (token: string | null | undefined, sessionHash: string | null) => (token ? sha256hex(token) : sessionHash);

/**
 * POST /enrollment/activate_user {phone_number, password}: the password (and phone) of the
 * user the session's token names; the account counts as enrolled and the session ends. The
 * welcome e-mail (enrolment settings) goes out after the commit when SMTP is configured.
 */
export async function activateUser(sessionHash: string | null, input: ActivateUserInput, ip: string | null): Promise<void> {
  const s = await getSettings();
  const mail = await transaction(async (tx) => {
    const t = await sessionToken(tx, hashOf(input.token, sessionHash));
    const user = await userRow(tx, t.userId);
    if (!user) throw unauthorized(MSG.invalidToken);
    if (user.hasPassword) throw badRequest(MSG.alreadyActivated);
    if (!user.isActive) throw badRequest(MSG.userDisabled);
    await tx
      .update(users)
      .set({ passwordHash: await hashPassword(input.password), enrolled: true, ...(input.phone_number ? { phone: input.phone_number } : {}) })
      .where(eq(users.id, user.id));
    await tx.update(enrollmentTokens).set({ sessionEndsAt: sql`now()` }).where(eq(enrollmentTokens.tokenHash, t.tokenHash));
    await recordActivity(tx, { userId: user.id, username: user.username, ip }, {
      event: "enrollment_completed",
      module: "enrollment",
      description: "Enrollment completed: password set",
    });
    // LDAP-linked users get the chosen password in their entry too (rolls back when refused).
    await writeLdapPassword(tx, user.id, input.password);
    if (!smtpConfigured(s)) return [];
    const admin = t.adminId !== null ? await userRow(tx, t.adminId) : undefined;
    const out: Mail[] = [{ to: user.email, ...welcomeMail(s, welcomeContext(user, admin), DEFAULT_WELCOME_MESSAGE, DEFAULT_WELCOME_EMAIL_SUBJECT) }];
    // The admin who started the enrolment hears that it is done (not for a desktop activation).
    if (admin && admin.id !== user.id && !user.enrolled) {
      out.push({ to: admin.email, ...enrollmentCompletedAdminMail({ instanceName: s.instanceName, adminName: personName(admin), userName: personName(user), username: user.username }) });
    }
    return out;
  });
  // The account is set up whatever happens to the messages; a failed send is only logged.
  for (const m of mail) await sendMail(m).catch((err) => console.error(`[enrollment] e-mail "${m.subject}" not sent: ${(err as Error).message}`));
}

/** defguard proxy Device. */
const proxyDevice = (d: typeof devices.$inferSelect, pubkey: string) => ({
  id: d.id,
  name: d.name,
  pubkey,
  user_id: d.userId,
  created_at: unixSeconds(d.createdAt),
});

/** A new polling token for a device (POST /poll); the device's earlier one stops working. */
async function newPollingToken(tx: Tx, deviceId: number): Promise<string> {
  await tx.delete(pollingTokens).where(eq(pollingTokens.deviceId, deviceId));
  const token = randomToken(24);
  await tx.insert(pollingTokens).values({ tokenHash: sha256hex(token), deviceId });
  return token;
}

/** defguard proxy DeviceConfigResponse for a device: one config per location it has addresses in. */
async function deviceConfigResponse(tx: Tx, d: typeof devices.$inferSelect, username: string, token: string | null) {
  const links = await tx
    .select({ ips: deviceLocations.ips, loc: locations })
    .from(deviceLocations)
    .innerJoin(locations, eq(locations.id, deviceLocations.locationId))
    .where(eq(deviceLocations.deviceId, d.id))
    .orderBy(asc(locations.name));
  const policy = (await readEnterpriseSettings(tx)).client_traffic_policy;
  return stripNulls({
    device: proxyDevice(d, d.wireguardPubkey ?? ""),
    configs: links.map((l) => proxyDeviceConfig(l.loc, l.ips, policy)),
    instance: await instanceInfo(tx, username),
    token,
  });
}

/**
 * POST /enrollment/create_device {name, pubkey, token?}. A network-device (CLI) token: the
 * key of the device waiting for it. An enrolment token: a new device of the token's user, made
 * by the user-device service (addresses in every location the user may use), with a polling
 * token for the desktop client. Answers DeviceConfigResponse.
 */
export async function enrollDevice(sessionHash: string | null, input: EnrollmentCreateDeviceInput, ip: string | null) {
  const hash = hashOf(input.token, sessionHash);
  if (!hash) throw unauthorized(MSG.noSession);
  const [t] = await getDb().select({ kind: enrollmentTokens.kind }).from(enrollmentTokens).where(eq(enrollmentTokens.tokenHash, hash));
  // A network device's token is spent by its one device: its session ends with it.
  if (t?.kind !== TOKEN_KIND_ENROLLMENT) return { body: await enrollNetworkDevice(sessionHash, input, ip), endsSession: true };
  const name = deviceNameSchema.safeParse(input.name ?? "");
  if (!name.success) {
    if (!(input.name ?? "").trim()) throw badRequest(MSG.noDeviceName, "name");
    throw badRequest(zodMessage(name.error, "name").msg, "name");
  }
  return transaction(async (tx, emit) => {
    const tok = await sessionToken(tx, hash);
    const user = await userRow(tx, tok.userId);
    if (!user) throw unauthorized(MSG.invalidToken);
    if (!user.isActive) throw badRequest(MSG.deviceDisabledUser);
    const actor: Actor = { userId: user.id, username: user.username, ip };
    const { row } = await insertUserDevice(
      tx,
      emit,
      actor,
      user,
      { name: name.data, wireguard_pubkey: input.pubkey, description: null },
      { event: "enrollment_device_added", module: "enrollment", description: `Device ${name.data} added during enrollment` },
    ).catch((err: unknown) => {
      // The proxy's field is `pubkey`.
      if (err instanceof AppError && err.field === "wireguard_pubkey") throw new AppError(err.status, err.msg, "pubkey");
      throw err;
    });
    const body = await deviceConfigResponse(tx, row, user.username, await newPollingToken(tx, row.id));
    return { body, endsSession: false, notice: { to: user.email, device: row, configs: body.configs } };
  }).then(async ({ notice, ...answer }) => {
    // As defguard: the user hears of a device added to their account (after the commit; a failed send is only logged).
    const s = await getSettings();
    if (smtpConfigured(s)) {
      const m = newDeviceMail({
        instanceName: s.instanceName,
        deviceName: notice.device.name,
        pubkey: notice.device.wireguardPubkey ?? "",
        locations: notice.configs.map((c) => ({ name: c.network_name, ips: c.assigned_ip.split(",") })),
        ip,
      });
      await sendMail({ to: notice.to, ...m }).catch((err) => console.error(`[enrollment] new-device e-mail not sent: ${(err as Error).message}`));
    }
    return answer;
  });
}

/**
 * POST /enrollment/network_info {pubkey}: the configuration of a device of the session's user
 * (the desktop client adding an instance to a device it already has), with a new polling token.
 */
export async function networkInfo(sessionHash: string | null, input: NetworkInfoInput) {
  return transaction(async (tx) => {
    const t = await sessionToken(tx, hashOf(input.token, sessionHash));
    const [d] = await tx.select().from(devices).where(eq(devices.wireguardPubkey, input.pubkey));
    if (!d) throw notFound(MSG.notFoundDevice);
    if (d.userId !== t.userId) throw unauthorized(MSG.tokenNotForDevice);
    const user = await userRow(tx, t.userId);
    if (!user) throw unauthorized(MSG.invalidToken);
    return deviceConfigResponse(tx, d, user.username, await newPollingToken(tx, d.id));
  });
}

/**
 * POST /poll {token}: the desktop client's periodic fetch of its device's current
 * configuration (defguard proxy InstanceInfoResponse). Enterprise feature, as in defguard.
 */
export async function poll(token: string) {
  const licence = await licenseInfo();
  if (!licence.enterprise) throw new AppError(402, MSG.enterpriseRequired);
  const db = getDb();
  const [p] = await db.select().from(pollingTokens).where(eq(pollingTokens.tokenHash, sha256hex(token)));
  if (!p) throw new AppError(403, MSG.pollInvalid);
  const [d] = await db.select().from(devices).where(eq(devices.id, p.deviceId));
  if (!d) throw new AppError(403, MSG.pollInvalid);
  const user = await userRow(db, d.userId);
  if (!user || !user.isActive) throw new AppError(403, MSG.userInactive);
  return { device_config: await deviceConfigResponse(db, d, user.username, null) };
}

/**
 * The network-device half of POST /enrollment/create_device: the CLI's public key for the
 * network device the token (or the session of /enrollment/start) names. The token is spent,
 * the device becomes configured, and gateways get the new peer. Answers DeviceConfigResponse.
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

// ------------------------------------------------------------------- MFA set-up during enrolment

/** The enrolling user of a running session (not yet enrolled: 403 otherwise). */
async function enrollingUser(sessionHash: string | null) {
  const db = getDb();
  const t = await sessionToken(db, sessionHash);
  const user = await userRow(db, t.userId);
  if (!user) throw unauthorized(MSG.invalidToken);
  if (user.enrolled) throw new AppError(403, MSG.alreadyEnrolled);
  const [m] = await db.select({ totp: users.totpEnabled, email: users.emailMfaEnabled, mfa: users.mfaEnabled }).from(users).where(eq(users.id, user.id));
  return { user, methods: m };
}

/**
 * POST /enrollment/register-mfa/code/start {method}: TOTP → {totp_secret} (a pending secret the
 * user's app adds); e-mail → {} and a code to the user's address. As defguard, for users still
 * enrolling (the `defguard_proxy` session), when the method is not on yet.
 */
export async function registerMfaStart(sessionHash: string | null, input: RegisterMfaStartInput, ip: string | null): Promise<{ totp_secret?: string }> {
  const { user, methods } = await enrollingUser(sessionHash);
  const actor: Actor = { userId: user.id, username: user.username, ip };
  if (input.method === "totp") {
    if (methods.totp) throw new AppError(400, MSG.methodEnabled, "method");
    const { secret: totpSecret } = await totpInit(actor, user.id, { fresh: false });
    return { totp_secret: totpSecret };
  }
  if (methods.email) throw new AppError(400, MSG.methodEnabled, "method");
  await emailInit(actor, user.id);
  return {};
}

/**
 * POST /enrollment/register-mfa/code/finish {code, method}: the first code turns the method and
 * MFA on (activity mfa_totp_enabled / mfa_email_enabled) → {recovery_codes}.
 */
export async function registerMfaFinish(sessionHash: string | null, input: RegisterMfaFinishInput, ip: string | null): Promise<{ recovery_codes: string[] }> {
  const { user, methods } = await enrollingUser(sessionHash);
  if (methods.mfa) throw new AppError(400, MSG.mfaEnabled);
  const actor: Actor = { userId: user.id, username: user.username, ip };
  const invalid = input.method === "totp" ? MSG.totpInvalid : MSG.emailInvalid;
  try {
    const { codes } = input.method === "totp" ? await totpEnable(actor, user.id, input.code, { fresh: false }) : await emailEnable(actor, user.id, input.code);
    return { recovery_codes: codes ?? [] };
  } catch (err) {
    if (err instanceof AppError && err.status === 400) throw new AppError(400, err.field === "code" ? invalid : err.msg, err.field);
    throw err;
  }
}

// ------------------------------------------------------------------- defguard's mobile app

/**
 * POST /enrollment/register_mobile {auth_pub_key, device_pub_key}: during its enrolment session
 * defguard's mobile app registers the Ed25519 key it will sign biometric MFA challenges with,
 * for the device (WireGuard key) it just added. One key per device; a new registration replaces
 * it. Unlike defguard, the device must belong to the session's user (another user's device
 * answers as /network_info does).
 */
export async function registerMobileAuth(sessionHash: string | null, input: RegisterMobileInput, ip: string | null): Promise<void> {
  await transaction(async (tx) => {
    const t = await sessionToken(tx, hashOf(input.token, sessionHash));
    const user = await userRow(tx, t.userId);
    if (!user) throw unauthorized(MSG.invalidToken);
    const [d] = await tx.select().from(devices).where(eq(devices.wireguardPubkey, input.device_pub_key));
    if (!d || d.deviceType !== "user") throw badRequest(MSG.mobileDeviceNotFound, "device_pub_key");
    if (d.userId !== t.userId) throw unauthorized(MSG.tokenNotForDevice);
    await tx
      .insert(mobileAuthKeys)
      .values({ deviceId: d.id, pubKey: input.auth_pub_key })
      .onConflictDoUpdate({ target: mobileAuthKeys.deviceId, set: { pubKey: input.auth_pub_key, createdAt: sql`now()` } });
    await recordActivity(tx, { userId: user.id, username: user.username, ip }, {
      event: "mobile_auth_registered",
      module: "enrollment",
      device: d.name,
      description: `Mobile app key for biometric MFA registered for device ${d.name}`,
    });
  });
}
