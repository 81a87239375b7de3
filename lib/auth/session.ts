import { and, eq, gt, sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { groupUsers, groups, sessions, users } from "../db/schema";
import { hmac, randomToken, sha256hex } from "../crypto";
import { secret } from "../config";

export const SESSION_COOKIE = "defguard_session";
export const XSRF_COOKIE = "XSRF-TOKEN";
export const XSRF_HEADER = "x-xsrf-token";
export const SESSION_TTL_SECONDS = 7 * 24 * 3600;

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
}

export interface Session {
  id: string;
  state: SessionState;
  data: Record<string, unknown>;
  user: SessionUser;
  policy: SessionPolicy;
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

export async function createSession(
  tx: Tx,
  userId: number,
  state: SessionState,
  meta: { ip: string | null; userAgent: string | null },
): Promise<string> {
  const token = randomToken(32);
  await tx.insert(sessions).values({
    id: sha256hex(token),
    userId,
    state,
    ip: meta.ip,
    userAgent: meta.userAgent?.slice(0, 512) ?? null,
    expiresAt: new Date(Date.now() + SESSION_TTL_SECONDS * 1000),
  });
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
    policy: { requireMfa: r.requireMfa },
  };
}

export async function deleteSessionByToken(token: string): Promise<void> {
  await getDb().delete(sessions).where(eq(sessions.id, sha256hex(token)));
}

export async function deleteUserSessions(tx: Tx, userId: number): Promise<void> {
  await tx.delete(sessions).where(eq(sessions.userId, userId));
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
