import "server-only";
import { and, eq, gt, ne, sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { apiTokens, groupUsers, groups, sessions, users } from "../db/schema";
import { hmac, randomToken, sha256hex } from "../crypto";
import { maxSessionsPerUser, secret } from "../config";
import { AppError } from "../errors";
import type { ModuleName } from "./modules";

export const SESSION_COOKIE = "defguard_session";
export const XSRF_COOKIE = "XSRF-TOKEN";
export const XSRF_HEADER = "x-xsrf-token";
export const SESSION_TTL_SECONDS = 7 * 24 * 3600;
/** A session waiting for its second factor lives at most this long. */
export const PENDING_SESSION_TTL_SECONDS = 10 * 60;
/** How long a proof of the password or a second factor counts as fresh ("sudo mode"). */
export const REAUTH_WINDOW_SECONDS = 10 * 60;

export type SessionState = "password_verified" | "authenticated";

export interface SessionUser {
  id: number;
  username: string;
  isActive: boolean;
  mfaEnabled: boolean;
  isAdmin: boolean;
}

/** Instance policy that the route wrapper enforces per request. */
export interface SessionPolicy {
  requireMfa: boolean;
  /** Modules switched off in Settings → Global: their routes answer 403 module_disabled. */
  disabledModules: ModuleName[];
}

export type { ModuleName };

/** The switched-off modules, read in the same query as the session (no extra round trip). */
const disabledModulesSql = sql<ModuleName[] | null>`(select array_remove(array[
    case when not s.wireguard_enabled then 'wireguard' end,
    case when not s.openid_enabled then 'openid' end,
    case when not s.webhooks_enabled then 'webhooks' end,
    case when not s.worker_enabled then 'worker' end]::text[], null) from settings s where s.id = 1)`;

/**
 * The modules switched off now, read from the database on every call (as the REST gate reads them
 * with the session), so every console process sees a switch at once and turning a module back on
 * needs no restart. For the callers that have no session: the OpenID provider and the gRPC services.
 */
export async function disabledModules(): Promise<ModuleName[]> {
  const r = await getDb().execute<{ m: ModuleName[] | null }>(sql`select ${disabledModulesSql} as m`);
  return r.rows[0]?.m ?? [];
}

export interface Session {
  id: string;
  state: SessionState;
  data: Record<string, unknown>;
  user: SessionUser;
  policy: SessionPolicy;
  /** The session proved the password or a second factor within REAUTH_WINDOW_SECONDS. */
  fresh: boolean;
  /** Set when the request was authorised by an API token (`Authorization: Bearer`), not a cookie. */
  apiToken?: { id: number; name: string };
}

/**
 * Outer-query column references for correlated subqueries. Drizzle renders a column without
 * its table name in single-table selects, where "id" would bind to the subquery's own table.
 */
export const USERS_ID = sql.raw('"users"."id"');
export const GROUPS_ID = sql.raw('"groups"."id"');

/** Admin role: membership of any group flagged is_admin (docs/api.md). `userId` defaults to the outer users row. */
export const isAdminSql = (userId: unknown = USERS_ID) =>
  sql<boolean>`exists (select 1 from ${groupUsers} gu join ${groups} g on g.id = gu.group_id where gu.user_id = ${userId} and g.is_admin)`;

/**
 * Open a session for a user who has just proved the password (and, for "authenticated" after
 * MFA, a second factor): its proof is fresh. A user keeps at most maxSessionsPerUser() live
 * sessions; the oldest ones (and any expired ones) end here.
 */
export async function createSession(
  tx: Tx,
  userId: number,
  state: SessionState,
  meta: { ip: string | null; userAgent: string | null },
): Promise<string> {
  const token = randomToken(32);
  const id = sha256hex(token);
  const ttl = state === "authenticated" ? SESSION_TTL_SECONDS : PENDING_SESSION_TTL_SECONDS;
  await tx.insert(sessions).values({
    id,
    userId,
    state,
    ip: meta.ip,
    userAgent: meta.userAgent?.slice(0, 512) ?? null,
    expiresAt: sql`now() + make_interval(secs => ${ttl})` as unknown as Date,
    reauthAt: sql`now()` as unknown as Date,
  });
  await tx.execute(sql`
    delete from ${sessions} where user_id = ${userId} and id not in (
      select id from ${sessions} where user_id = ${userId} and expires_at > now()
      order by (id = ${id}) desc, created_at desc limit ${maxSessionsPerUser()})`);
  return token;
}

export async function findSession(token: string): Promise<Session | null> {
  if (!token || token.length > 128) return null;
  const rows = await getDb()
    .select({
      id: sessions.id,
      state: sessions.state,
      data: sessions.data,
      userId: users.id,
      username: users.username,
      isActive: users.isActive,
      mfaEnabled: users.mfaEnabled,
      isAdmin: isAdminSql(),
      requireMfa: sql<boolean>`coalesce((select s.require_mfa from settings s where s.id = 1), false)`,
      disabledModules: disabledModulesSql,
      fresh: sql<boolean>`coalesce(${sessions.reauthAt} > now() - make_interval(secs => ${REAUTH_WINDOW_SECONDS}), false)`,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, sha256hex(token)), gt(sessions.expiresAt, sql`now()`)))
    .limit(1);
  const r = rows[0];
  if (!r) return null;
  return {
    id: r.id,
    state: r.state as SessionState,
    data: r.data,
    user: { id: r.userId, username: r.username, isActive: r.isActive, mfaEnabled: r.mfaEnabled, isAdmin: r.isAdmin },
    policy: { requireMfa: r.requireMfa, disabledModules: r.disabledModules ?? [] },
    fresh: r.fresh,
  };
}

/** API tokens: `dg-` and 32 letters or digits (docs/api.md). */
export const API_TOKEN_PATTERN = /^dg-[A-Za-z0-9]{32}$/;

/**
 * The request-only session of an API token (`Authorization: Bearer <token>`): nothing is stored,
 * every request is authorised again. Found only for an active user; whether the owner is still
 * an admin is part of the answer (`user.isAdmin`), the route wrapper refuses the token otherwise.
 * A token session counts as fully signed in (its owner passed every factor when making it) but
 * never as fresh: changing sign-in security needs a cookie session.
 */
export async function findApiTokenSession(token: string): Promise<Session | null> {
  if (!API_TOKEN_PATTERN.test(token)) return null;
  const rows = await getDb()
    .select({
      tokenId: apiTokens.id,
      tokenName: apiTokens.name,
      userId: users.id,
      username: users.username,
      isActive: users.isActive,
      mfaEnabled: users.mfaEnabled,
      isAdmin: isAdminSql(),
      disabledModules: disabledModulesSql,
    })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .where(eq(apiTokens.tokenHash, sha256hex(token)))
    .limit(1);
  const r = rows[0];
  if (!r || !r.isActive) return null;
  // Bookkeeping for the stale-access report, at most once a minute per token.
  await getDb().execute(
    sql`update api_tokens set last_used_at = now() where id = ${r.tokenId} and (last_used_at is null or last_used_at < now() - interval '1 minute')`,
  );
  return {
    id: `api_token:${r.tokenId}`,
    state: "authenticated",
    data: {},
    user: { id: r.userId, username: r.username, isActive: r.isActive, mfaEnabled: r.mfaEnabled, isAdmin: r.isAdmin },
    policy: { requireMfa: false, disabledModules: r.disabledModules ?? [] },
    fresh: false,
    apiToken: { id: r.tokenId, name: r.tokenName },
  };
}

export async function deleteSessionByToken(token: string, tx: Tx = getDb()): Promise<void> {
  await tx.delete(sessions).where(eq(sessions.id, sha256hex(token)));
}

/** End every session of a user (password set by an admin or reset, account disabled). */
export async function deleteUserSessions(tx: Tx, userId: number): Promise<void> {
  await tx.delete(sessions).where(eq(sessions.userId, userId));
}

/** End every session of a user but `keepSessionId` (the user changed their own password). */
export async function deleteOtherSessions(tx: Tx, userId: number, keepSessionId: string): Promise<void> {
  await tx.delete(sessions).where(and(eq(sessions.userId, userId), ne(sessions.id, keepSessionId)));
}

/** The session proved the password or a second factor again (POST /auth/reauth). */
export async function markReauthenticated(tx: Tx, sessionId: string): Promise<void> {
  await tx.update(sessions).set({ reauthAt: sql`now()` }).where(eq(sessions.id, sessionId));
}

export const REAUTH_REQUIRED = {
  code: "reauth_required",
  msg: "For your security, confirm it is you: enter your password (or a code from your authenticator app) again, then retry.",
} as const;

/**
 * The one rule of "sudo mode": changing sign-in security (turning MFA or a method off,
 * replacing a TOTP secret, deleting a security key, changing an e-mail address) needs a
 * session whose proof is fresh. Otherwise 403 {msg, code: "reauth_required"}.
 */
export function requireFreshProof(session: Pick<Session, "fresh">): void {
  if (!session.fresh) throw new AppError(403, REAUTH_REQUIRED.msg, undefined, { code: REAUTH_REQUIRED.code });
}

/** The anti-forgery token is bound to the session: HMAC(secret key, session token). */
export function xsrfTokenFor(sessionToken: string): string {
  return hmac(secret("secretKey"), `xsrf:${sessionToken}`);
}

/** Replace a session's short-lived data (MFA challenges and the like). */
export async function setSessionData(sessionId: string, data: Record<string, unknown>): Promise<void> {
  await getDb().update(sessions).set({ data }).where(eq(sessions.id, sessionId));
}

/**
 * A second factor succeeded: the waiting session is replaced by a new, fully authenticated one
 * (a new token, so a token seen before the second factor is worthless afterwards).
 */
export async function promoteSession(
  tx: Tx,
  oldSessionId: string,
  userId: number,
  meta: { ip: string | null; userAgent: string | null },
): Promise<string> {
  await tx.delete(sessions).where(eq(sessions.id, oldSessionId));
  return createSession(tx, userId, "authenticated", meta);
}
