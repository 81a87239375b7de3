import { and, eq, gt, or, sql } from "drizzle-orm";
import { getDb } from "../db";
import { loginFailures, loginLockouts, users } from "../db/schema";
import { AppError, tooManyRequests, unauthorized } from "../errors";
import type { LoginInput } from "./schema";
import { verifyPassword } from "./password";
import { createSession, deleteSessionByToken } from "./session";
import { recordActivity } from "../activity/service";
import { getSettings } from "../settings/service";

/** Lockout rule (docs/api.md): 5 failures within 60 s lock the login for 5 minutes. */
export const LOCKOUT = { maxFailures: 5, windowSeconds: 60, lockSeconds: 300 } as const;

export const MSG = {
  badCredentials: "invalid username or password",
  locked: "too many bad login attempts, try again in a few minutes",
  disabled: "user account is disabled",
} as const;

export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
}

export type LoginResult =
  | { kind: "signed_in"; userId: number; token: string; mfaSetupRequired: boolean }
  | {
      kind: "mfa_required";
      userId: number;
      token: string;
      mfa: { mfa_method: string; totp_available: boolean; webauthn_available: boolean; email_available: boolean };
    };

async function hasSecurityKeys(userId: number): Promise<boolean> {
  const r = await getDb().execute(sql`select 1 from webauthn_credentials where user_id = ${userId} limit 1`);
  return r.rows.length > 0;
}

function normaliseLogin(login: string): string {
  return login.trim().toLowerCase();
}

/**
 * While a login is locked, every attempt extends the lock (docs/api.md) and is refused before the
 * password is even looked at. Returns normally when the login is not locked.
 */
export async function assertNotLocked(login: string): Promise<void> {
  const key = normaliseLogin(login);
  const extended = await getDb()
    .update(loginLockouts)
    .set({ lockedUntil: sql`now() + make_interval(secs => ${LOCKOUT.lockSeconds})` })
    .where(and(eq(loginLockouts.login, key), gt(loginLockouts.lockedUntil, sql`now()`)))
    .returning({ login: loginLockouts.login });
  if (extended.length > 0) throw tooManyRequests(MSG.locked);
}

/** Count a failed attempt (password or, later, an MFA code); lock the login at the threshold. */
export async function recordFailure(login: string): Promise<void> {
  const key = normaliseLogin(login);
  await getDb().transaction(async (tx) => {
    // Serialise concurrent failures for one login so the threshold is exact.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${"login:" + key}))`);
    await tx.insert(loginFailures).values({ login: key });
    const [{ n }] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(loginFailures)
      .where(
        and(
          eq(loginFailures.login, key),
          gt(loginFailures.at, sql`now() - make_interval(secs => ${LOCKOUT.windowSeconds})`),
        ),
      );
    if (n >= LOCKOUT.maxFailures) {
      await tx
        .insert(loginLockouts)
        .values({ login: key, lockedUntil: sql`now() + make_interval(secs => ${LOCKOUT.lockSeconds})` })
        .onConflictDoUpdate({
          target: loginLockouts.login,
          set: { lockedUntil: sql`now() + make_interval(secs => ${LOCKOUT.lockSeconds})` },
        });
      await tx.delete(loginFailures).where(eq(loginFailures.login, key));
    }
  });
}

export async function clearFailures(login: string): Promise<void> {
  await getDb().delete(loginFailures).where(eq(loginFailures.login, normaliseLogin(login)));
}

/** POST /auth: check the lockout, the password and the account, then open a session. */
export async function login(input: LoginInput, meta: RequestMeta): Promise<LoginResult> {
  const typed = normaliseLogin(input.username);
  const [user] = await getDb()
    .select()
    .from(users)
    .where(or(sql`lower(${users.username}) = ${typed}`, sql`lower(${users.email}) = ${typed}`))
    .limit(1);
  // One counter per account, whether the login was typed as the username or the e-mail.
  const key = user ? normaliseLogin(user.username) : typed;
  await assertNotLocked(key);
  const ok = await verifyPassword(user?.passwordHash ?? null, input.password);
  if (!user || !ok) {
    await recordFailure(key);
    await recordActivity(getDb(), { userId: user?.id ?? null, username: user?.username ?? key.slice(0, 64), ip: meta.ip }, {
      event: "user_login_failed",
      description: user ? "Wrong password" : "Unknown user",
    });
    throw unauthorized(MSG.badCredentials);
  }
  await clearFailures(key);
  const actor = { userId: user.id, username: user.username, ip: meta.ip };
  if (!user.isActive) {
    await recordActivity(getDb(), actor, { event: "user_login_failed", description: "Account is disabled" });
    throw new AppError(401, MSG.disabled);
  }

  if (user.mfaEnabled) {
    const token = await createSession(getDb(), user.id, "password_verified", meta);
    return {
      kind: "mfa_required",
      userId: user.id,
      token,
      mfa: {
        mfa_method: user.mfaMethod,
        totp_available: user.totpEnabled,
        webauthn_available: (await hasSecurityKeys(user.id)),
        email_available: user.emailMfaEnabled,
      },
    };
  }
  const token = await createSession(getDb(), user.id, "authenticated", meta);
  await recordActivity(getDb(), actor, { event: "user_login" });
  const { requireMfa } = await getSettings();
  return { kind: "signed_in", userId: user.id, token, mfaSetupRequired: requireMfa && !user.mfaEnabled };
}

/** POST /auth/logout: end this session. */
export async function logout(sessionToken: string, actor: { userId: number; username: string; ip: string | null }) {
  await deleteSessionByToken(sessionToken);
  await recordActivity(getDb(), actor, { event: "user_logout" });
}
