import "server-only";
import { and, count, eq, inArray, isNull, gt, sql, type SQL } from "drizzle-orm";
import { containsPattern } from "../db/like";
import { getDb, type Tx } from "../db";
import { groupUsers, groups, passwordResetTokens, users } from "../db/schema";
import { AppError, badRequest, conflict, forbidden, notFound } from "../errors";
import { isAdminSql, deleteOtherSessions, deleteUserSessions, markReauthenticated, requireFreshProof, USERS_ID, type Session } from "../auth/session";
import { hashPassword, verifyPassword } from "../auth/password";
import { randomToken, sha256hex } from "../crypto";
import { publicUrl } from "../config";
import { recordActivity, type Actor } from "../activity/service";
import { transaction, type Emit } from "../events";
import { listSecurityKeys } from "../mfa/service";
import { listUserDevices } from "../devices/service";
import { reconcileAllLocations } from "../locations/service";
import { getSettings } from "../settings/service";
import { writeLdapPassword } from "../ldap/password";
import { renameLdapUser } from "../ldap/rename";
import { passwordResetMail, sendMail, smtpConfigured, SMTP_NOT_CONFIGURED } from "../mail/service";
import type { CreateUserInput, ListUsersQuery, UpdateUserInput } from "./schema";
import { cachedUsersList } from "./list-cache";

export const MSG = {
  usernameTaken: "username is already in use",
  emailTaken: "email already taken",
  lastAdmin: "the last active admin cannot lose admin rights",
  adminOnlyField: "only an admin can change this field",
  wrongOldPassword: "old password is incorrect",
  ownPasswordViaProfile: "use your profile to change your own password",
  resetInvalid: "password reset link is invalid or has expired",
} as const;

/** UserInfo of docs/api.md. */
export interface UserInfo {
  id: number;
  username: string;
  first_name: string;
  last_name: string;
  email: string;
  phone: string | null;
  is_active: boolean;
  enrolled: boolean;
  is_admin: boolean;
  mfa_enabled: boolean;
  totp_enabled: boolean;
  email_mfa_enabled: boolean;
  mfa_method: "None" | "OneTimePassword" | "Webauthn" | "Email";
  groups: string[];
  authorized_apps: { oauth2client_id: number; oauth2client_name: string; user_id: number }[];
  ldap_pass_requires_change: boolean;
}

/**
 * The view every UserInfo comes from (migration 0011): one row per user with exactly the
 * UserInfo fields, in order. Single reads, the paged, searched and full lists all select it.
 */
const userInfoView = sql`user_info v`;

/** The shared search and filter of the user lists, over the view (alias v). */
function userListWhere(q: Pick<ListUsersQuery, "search" | "filter">): SQL {
  const where: SQL[] = [];
  if (q.search) {
    const like = containsPattern(q.search);
    where.push(sql`(v.username ilike ${like} or v.first_name ilike ${like} or v.last_name ilike ${like} or v.email ilike ${like}
      or v.phone ilike ${like} or (v.first_name || ' ' || v.last_name) ilike ${like})`);
  }
  if (q.filter === "admins") where.push(sql`v.is_admin`);
  if (q.filter === "users") where.push(sql`not v.is_admin`);
  return where.length ? and(...where)! : sql`true`;
}

/**
 * The same filter on the users table itself (alias `v`), so a page is chosen and counted
 * without building every user's groups first: the view's per-user aggregate then runs only
 * for the rows of the page.
 */
export function userTableWhere(q: Pick<ListUsersQuery, "search" | "filter">): SQL {
  const admin = isAdminSql(sql.raw("v.id"));
  const where: SQL[] = [];
  if (q.search) {
    const like = containsPattern(q.search);
    where.push(sql`(v.username ilike ${like} or v.first_name ilike ${like} or v.last_name ilike ${like} or v.email ilike ${like}
      or v.phone ilike ${like} or (v.first_name || ' ' || v.last_name) ilike ${like})`);
  }
  if (q.filter === "admins") where.push(admin);
  if (q.filter === "users") where.push(sql`not ${admin}`);
  return where.length ? and(...where)! : sql`true`;
}

export async function getUserInfo(userId: number, tx: Tx = getDb()): Promise<UserInfo> {
  const r = await tx.execute<{ info: UserInfo }>(sql`select row_to_json(v) info from ${userInfoView} where v.id = ${userId}`);
  if (!r.rows.length) throw notFound("user not found");
  const info = r.rows[0].info;
  // The OpenID apps this user consented to (lists keep them empty, as defguard's list does).
  const apps = await tx.execute<{ oauth2client_id: number; oauth2client_name: string; user_id: number }>(
    sql`select c.id oauth2client_id, c.name oauth2client_name, k.user_id from oauth2_consents k
        join oauth2_clients c on c.id = k.client_id where k.user_id = ${userId} order by c.name`,
  );
  info.authorized_apps = apps.rows.map((r) => ({ ...r, oauth2client_id: Number(r.oauth2client_id), user_id: Number(r.user_id) }));
  return info;
}

/** UserInfo of many users in one query (the entries the users_list_json triggers keep), by id. */
export async function userInfos(ids: number[]): Promise<Map<number, UserInfo>> {
  if (!ids.length) return new Map();
  const r = await getDb().execute<{ user_id: number; body: string }>(
    sql`select user_id, body from users_list_json where user_id = any(${sql.param(ids)}::int[])`,
  );
  return new Map(r.rows.map((row) => [Number(row.user_id), JSON.parse(row.body) as UserInfo]));
}

export async function findUserByUsername(tx: Tx, username: string) {
  const [u] = await tx.select().from(users).where(sql`lower(${users.username}) = lower(${username})`).limit(1);
  return u ?? null;
}

export async function requireUserId(username: string): Promise<number> {
  return (await requireUser(getDb(), username)).id;
}

async function requireUser(tx: Tx, username: string) {
  const u = await findUserByUsername(tx, username);
  if (!u) throw notFound("user not found");
  return u;
}

/**
 * GET /user without paging: the full UserInfo array as JSON bytes. With a search term
 * PostgreSQL builds it from the user_info view; without one it is assembled from the per-user
 * entries the users_list_json triggers keep (also from that view), held in this process and
 * re-read only where they changed (lib/users/list-cache.ts), so a change made by any console
 * process shows on the next request.
 */
export async function listUsersJson(q: ListUsersQuery): Promise<Buffer> {
  if (q.search) return Buffer.from(await searchUsersJson(q), "utf8");
  return cachedUsersList(q, usersOrder(q.sort));
}

function usersOrder(sort: ListUsersQuery["sort"], alias = "u"): SQL {
  const a = sql.raw(alias);
  return sort === "name"
    ? sql`${a}.last_name, ${a}.first_name, ${a}.id`
    : sort === "-name"
      ? sql`${a}.last_name desc, ${a}.first_name desc, ${a}.id desc`
      : sort === "-username"
        ? sql`${a}.username desc`
        : sql`${a}.username`;
}

/** GET /user?search=… without paging: the matching users, JSON built by PostgreSQL. */
async function searchUsersJson(q: ListUsersQuery): Promise<string> {
  // json_agg over a sorted subquery (row_to_json) is about twice as fast as json_build_object.
  const r = await getDb().execute<{ body: string }>(sql`
    select coalesce(json_agg(t), '[]')::text body from (
      select v.* from ${userInfoView} where ${userListWhere(q)} order by ${usersOrder(q.sort, "v")}) t`);
  return r.rows[0].body;
}

/** GET /user?page=…: one page of users with pagination (the full list is listUsersJson). */
export async function listUsers(q: ListUsersQuery) {
  const where = userTableWhere(q);
  const page = q.page ?? 1;
  const pageSize = q.page_size ?? 50;
  const db = getDb();
  const [rows, counted] = await Promise.all([
    db.execute<{ info: UserInfo }>(sql`
      select row_to_json(i) info from (
        select v.id from users v where ${where}
        order by ${usersOrder(q.sort, "v")} limit ${pageSize} offset ${(page - 1) * pageSize}) p
      join user_info i on i.id = p.id
      order by ${usersOrder(q.sort, "i")}`),
    db.execute<{ total: number }>(sql`select count(*)::int total from users v where ${where}`),
  ]);
  const total = counted.rows[0].total;
  const totalPages = Math.max(1, Math.ceil(total / pageSize));
  return {
    data: rows.rows.map((r) => r.info),
    pagination: {
      current_page: page,
      page_size: pageSize,
      total_items: total,
      total_pages: totalPages,
      next_page: page < totalPages ? page + 1 : null,
    },
  };
}

/** GET /user/{username}: the user with their devices and security keys (filled by later domains). */
export async function getUserDetails(username: string) {
  const u = await requireUser(getDb(), username);
  return {
    user: await getUserInfo(u.id),
    devices: await listUserDevices(u.id),
    security_keys: await listSecurityKeys(u.id),
    // Device ids with biometric sign-in, registered by the desktop client (none until it does).
    biometric_enabled_devices: [] as number[],
  };
}

async function assertUsernameFree(tx: Tx, username: string, exceptId?: number) {
  const u = await findUserByUsername(tx, username);
  if (u && u.id !== exceptId) throw conflict(MSG.usernameTaken, "username");
}

async function assertEmailFree(tx: Tx, email: string, exceptId?: number) {
  const [u] = await tx.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = lower(${email})`).limit(1);
  if (u && u.id !== exceptId) throw conflict(MSG.emailTaken, "email");
}

export async function usernameAvailable(username: string): Promise<boolean> {
  return (await findUserByUsername(getDb(), username)) === null;
}

/**
 * Serialise every change that can take admin rights away, then check at least one active
 * admin remains before the transaction commits (issue: the last admin cannot lose admin rights).
 */
export async function lockAdmins(tx: Tx) {
  await tx.execute(sql`select pg_advisory_xact_lock(7240120)`);
}

export async function assertAdminRemains(tx: Tx) {
  const [{ n }] = await tx
    .select({ n: count() })
    .from(users)
    .where(and(eq(users.isActive, true), isAdminSql()));
  if (n < 1) throw badRequest(MSG.lastAdmin);
}

export async function createUser(actor: Actor, input: CreateUserInput): Promise<UserInfo> {
  return transaction(async (tx, emit) => {
    await assertUsernameFree(tx, input.username);
    await assertEmailFree(tx, input.email);
    const [u] = await tx
      .insert(users)
      .values({
        username: input.username,
        firstName: input.first_name,
        lastName: input.last_name,
        email: input.email,
        phone: input.phone ?? null,
        passwordHash: input.password ? await hashPassword(input.password) : null,
        enrolled: Boolean(input.password),
      })
      .returning();
    await recordActivity(tx, actor, { event: "user_added", description: `Added user ${u.username}` });
    emit({ type: "user.created", userId: u.id, username: u.username });
    return getUserInfo(u.id, tx);
  });
}

async function setUserGroups(tx: Tx, userId: number, names: string[]) {
  const wanted = [...new Set(names)];
  const found = wanted.length ? await tx.select().from(groups).where(inArray(groups.name, wanted)) : [];
  const missing = wanted.filter((n) => !found.some((g) => g.name === n));
  if (missing.length) throw badRequest(`group not found: ${missing.join(", ")}`, "groups");
  await tx.delete(groupUsers).where(eq(groupUsers.userId, userId));
  if (found.length) await tx.insert(groupUsers).values(found.map((g) => ({ groupId: g.id, userId })));
}

/**
 * PUT /user/{username}. Admins may change everything; users their own names and phone.
 * Changing an e-mail address (where e-mail codes and reset links go) needs the caller's
 * session to have proved the password or a second factor recently (`proof`; omitted only by
 * internal callers).
 */
export async function updateUser(
  actor: Actor,
  callerIsAdmin: boolean,
  username: string,
  input: UpdateUserInput,
  proof?: Pick<Session, "fresh">,
) {
  return transaction(async (tx, emit) => {
    if (callerIsAdmin) await lockAdmins(tx);
    const u = await requireUser(tx, username);
    if (!callerIsAdmin) {
      const current = await getUserInfo(u.id, tx);
      const groupsChanged =
        input.groups !== undefined && [...input.groups].sort().join("\n") !== [...current.groups].sort().join("\n");
      if (
        input.username !== u.username ||
        input.email.toLowerCase() !== u.email.toLowerCase() ||
        (input.is_active !== undefined && input.is_active !== u.isActive) ||
        groupsChanged
      ) {
        throw forbidden(MSG.adminOnlyField);
      }
    }
    if (input.username !== u.username) await assertUsernameFree(tx, input.username, u.id);
    if (input.email.toLowerCase() !== u.email.toLowerCase()) {
      if (proof) requireFreshProof(proof);
      await assertEmailFree(tx, input.email, u.id);
    }
    const disabling = input.is_active === false && u.isActive;
    await tx
      .update(users)
      .set({
        username: input.username,
        firstName: input.first_name,
        lastName: input.last_name,
        email: input.email,
        phone: input.phone ?? null,
        isActive: input.is_active ?? u.isActive,
      })
      .where(eq(users.id, u.id));
    const groupsBefore = callerIsAdmin && input.groups !== undefined ? (await getUserInfo(u.id, tx)).groups : null;
    if (callerIsAdmin && input.groups !== undefined) {
      await setUserGroups(tx, u.id, input.groups);
      // Group membership decides which locations the user's devices may use.
      await reconcileAllLocations(tx);
    }
    if (callerIsAdmin) await assertAdminRemains(tx);
    if (disabling) {
      await deleteUserSessions(tx, u.id);
      await recordActivity(tx, actor, { event: "user_disabled", description: `Disabled user ${input.username}` });
      emit({ type: "user.disabled", userId: u.id, username: input.username });
    } else if (input.is_active === true && !u.isActive) {
      await recordActivity(tx, actor, { event: "user_enabled", description: `Enabled user ${input.username}` });
      emit({ type: "user.enabled", userId: u.id, username: input.username });
    }
    if (groupsBefore && [...groupsBefore].sort().join("\n") !== [...input.groups!].sort().join("\n")) {
      await recordActivity(tx, actor, {
        event: "user_groups_modified",
        description: `Groups of ${input.username}: ${[...input.groups!].sort().join(", ") || "none"}`,
      });
    }
    await recordActivity(tx, actor, {
      event: "user_modified",
      description: input.username !== u.username ? `Modified user ${u.username} (now ${input.username})` : `Modified user ${u.username}`,
    });
    // A rename reaches the user's LDAP entry (modifyDN) last, so a refusal rolls it back.
    if (input.username !== u.username) await renameLdapUser(tx, actor, u.id, u.username, input.username);
    emit({ type: "user.modified", userId: u.id, username: input.username });
    return getUserInfo(u.id, tx);
  });
}

export async function deleteUser(actor: Actor, username: string): Promise<void> {
  await transaction(async (tx, emit) => {
    await lockAdmins(tx);
    const u = await requireUser(tx, username);
    await removeUserInTx(tx, emit, actor, u);
  });
}

/**
 * Delete a user (and their devices) inside the caller's transaction, with its log entry and
 * events; refuses to remove the last active admin. Also used by the LDAP sync.
 */
export async function removeUserInTx(tx: Tx, emit: Emit, actor: Actor, u: { id: number; username: string }, description = `Removed user ${u.username}`) {
  // The user's devices go with them: gateways must drop their peers.
  const owned = await tx.execute<{ id: number; pubkey: string; locs: number[] }>(sql`
    select d.id, d.wireguard_pubkey pubkey, coalesce(array_agg(dl.location_id) filter (where dl.location_id is not null), '{}') locs
    from devices d left join device_locations dl on dl.device_id = d.id where d.user_id = ${u.id} group by d.id`);
  await tx.delete(users).where(eq(users.id, u.id));
  for (const d of owned.rows) emit({ type: "device.deleted", deviceId: Number(d.id), pubkey: d.pubkey, locationIds: d.locs.map(Number) });
  await assertAdminRemains(tx);
  await recordActivity(tx, actor, { event: "user_removed", description });
  emit({ type: "user.deleted", userId: u.id, username: u.username });
}

/**
 * PUT /user/change_password: the signed-in user, proving the old password. Their other
 * sessions end; this one stays, and counts as freshly proved.
 */
export async function changeOwnPassword(
  actor: Actor,
  userId: number,
  sessionId: string,
  oldPassword: string,
  newPassword: string,
) {
  await transaction(async (tx) => {
    const [u] = await tx.select().from(users).where(eq(users.id, userId));
    if (!u) throw notFound("user not found");
    if (!(await verifyPassword(u.passwordHash, oldPassword))) throw badRequest(MSG.wrongOldPassword, "old_password");
    await tx.update(users).set({ passwordHash: await hashPassword(newPassword) }).where(eq(users.id, u.id));
    await deleteOtherSessions(tx, u.id, sessionId);
    await markReauthenticated(tx, sessionId);
    await recordActivity(tx, actor, { event: "password_changed", description: "Changed own password" });
    await writePasswordToLdap(tx, actor, u.id, u.username, newPassword);
  });
}

/** PUT /user/{username}/password: an admin sets another user's password; their sessions end. */
export async function setUserPassword(actor: Actor, username: string, newPassword: string) {
  await transaction(async (tx) => {
    const u = await requireUser(tx, username);
    if (u.id === actor.userId) throw badRequest(MSG.ownPasswordViaProfile);
    await tx.update(users).set({ passwordHash: await hashPassword(newPassword), enrolled: true }).where(eq(users.id, u.id));
    await deleteUserSessions(tx, u.id);
    await recordActivity(tx, actor, { event: "password_changed_by_admin", description: `Changed password of ${u.username}` });
    await writePasswordToLdap(tx, actor, u.id, u.username, newPassword);
  });
}

/**
 * The last step of a password change: write it to the user's LDAP entry when LDAP is enabled
 * and the user is linked to one (lib/ldap/password.ts); a refusal rolls the change back.
 */
async function writePasswordToLdap(tx: Tx, actor: Actor, userId: number, username: string, password: string) {
  if (await writeLdapPassword(tx, userId, password)) {
    await recordActivity(tx, actor, { event: "ldap_password_changed", description: `Password of ${username} written to LDAP` });
  }
}

export const RESET_TOKEN_MINUTES = 60;

/**
 * A new reset token for a user (earlier ones stop working), its log entry, and the e-mail with
 * the link, sent last in the caller's transaction so a failed send keeps nothing.
 */
async function issuePasswordReset(tx: Tx, actor: Actor, u: typeof users.$inferSelect, by: "admin" | "self") {
  const s = await getSettings(tx);
  const token = randomToken(32);
  await tx.delete(passwordResetTokens).where(eq(passwordResetTokens.userId, u.id));
  await tx.insert(passwordResetTokens).values({
    tokenHash: sha256hex(token),
    userId: u.id,
    expiresAt: new Date(Date.now() + RESET_TOKEN_MINUTES * 60_000),
  });
  await recordActivity(
    tx,
    actor,
    by === "admin"
      ? { event: "password_reset", description: `Password reset sent to ${u.username}` }
      : { event: "password_reset_requested", module: "enrollment", description: "Password reset link requested" },
  );
  const mail = passwordResetMail({
    instanceName: s.instanceName,
    name: `${u.firstName} ${u.lastName}`.trim() || u.username,
    url: `${publicUrl()}/password-reset?token=${encodeURIComponent(token)}`,
    expiresMinutes: RESET_TOKEN_MINUTES,
    requestedBy: by,
  });
  await sendMail({ to: u.email, ...mail });
}

/** POST /user/{username}/reset_password: e-mail a one-time reset link. */
export async function startPasswordReset(actor: Actor, username: string): Promise<void> {
  const s = await getSettings();
  if (!smtpConfigured(s)) throw badRequest(SMTP_NOT_CONFIGURED);
  // Token, log entry and message in one transaction: the message is sent last, before the
  // commit, so a failed send (503) leaves neither a usable token nor a log entry behind.
  await transaction(async (tx) => {
    const u = await requireUser(tx, username);
    if (!u.isActive) throw badRequest("user account is disabled");
    await issuePasswordReset(tx, actor, u, "admin");
  });
}

/**
 * POST /password-reset/request {email} (public): a reset link for the active, enrolled user
 * with this address. Unknown, disabled or not enrolled addresses get the same empty answer
 * and nothing happens, so the answer tells nothing about accounts.
 */
export async function requestPasswordReset(email: string, ip: string | null): Promise<void> {
  const s = await getSettings();
  if (!smtpConfigured(s)) throw badRequest(SMTP_NOT_CONFIGURED);
  await transaction(async (tx) => {
    const [u] = await tx.select().from(users).where(sql`lower(${users.email}) = lower(${email})`).for("update");
    if (!u || !u.isActive || !u.passwordHash) return;
    await issuePasswordReset(tx, { userId: u.id, username: u.username, ip }, u, "self");
  });
}

/**
 * POST /password-reset/start {token}: the user and deadline of a usable reset token (nothing
 * is spent yet), logged as password_reset_started. 401 when it is unknown, used or expired.
 */
export async function checkPasswordResetToken(tokenHash: string, ip: string | null): Promise<{ expiresAt: Date }> {
  return transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(passwordResetTokens)
      .where(and(eq(passwordResetTokens.tokenHash, tokenHash), isNull(passwordResetTokens.usedAt), gt(passwordResetTokens.expiresAt, sql`now()`)));
    if (!row) throw new AppError(401, MSG.resetInvalid);
    const [u] = await tx.select().from(users).where(eq(users.id, row.userId));
    if (!u || !u.isActive || !u.passwordHash) throw new AppError(403, "user disabled or not yet enrolled");
    await recordActivity(tx, { userId: u.id, username: u.username, ip }, { event: "password_reset_started", module: "enrollment", description: "Password reset link opened" });
    return { expiresAt: row.expiresAt };
  });
}

/** POST /password_reset (public): consume a reset token once and set the password. */
export async function resetPasswordWithToken(token: string, password: string, ip: string | null): Promise<void> {
  await resetPasswordWithHash(sha256hex(token), password, ip);
}

/** The reset itself, for a token's SHA-256 (the reset session cookie of POST /password-reset/reset holds only that). */
export async function resetPasswordWithHash(tokenHash: string, password: string, ip: string | null): Promise<void> {
  await transaction(async (tx) => {
    const [row] = await tx
      .update(passwordResetTokens)
      .set({ usedAt: sql`now()` })
      .where(
        and(
          eq(passwordResetTokens.tokenHash, tokenHash),
          isNull(passwordResetTokens.usedAt),
          gt(passwordResetTokens.expiresAt, sql`now()`),
        ),
      )
      .returning();
    if (!row) throw badRequest(MSG.resetInvalid);
    const [u] = await tx.select().from(users).where(eq(users.id, row.userId));
    if (!u || !u.isActive) throw badRequest(MSG.resetInvalid);
    await tx.update(users).set({ passwordHash: await hashPassword(password), enrolled: true }).where(eq(users.id, u.id));
    await deleteUserSessions(tx, u.id);
    await recordActivity(tx, { userId: u.id, username: u.username, ip }, { event: "password_reset_completed", description: "Password reset with an e-mailed link" });
    await writePasswordToLdap(tx, { userId: u.id, username: u.username, ip }, u.id, u.username, password);
  });
}
