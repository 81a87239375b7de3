import "server-only";
import { or, sql } from "drizzle-orm";
import { getDb } from "../db";
import { users } from "../db/schema";
import { AppError, unauthorized } from "../errors";
import type { LoginInput } from "./schema";
import { verifyPassword } from "./password";
import { createSession, deleteSessionByToken } from "./session";
import { assertNotLocked, clearFailures, normaliseLogin, recordFailure } from "./throttle";
import { recordActivity } from "../activity/service";
import { transaction } from "../events";
import { getSettings } from "../settings/service";
import { metrics } from "../metrics";

export { assertNotLocked, clearFailures, recordFailure } from "./throttle";

export const MSG = {
  badCredentials: "invalid username or password",
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
  try {
    await assertNotLocked(key, meta.ip);
  } catch (err) {
    if (err instanceof AppError && err.status === 429) {
      metrics().lockouts.inc();
      metrics().signIns.inc({ result: "locked" });
    }
    throw err;
  }
  const ok = await verifyPassword(user?.passwordHash ?? null, input.password);
  if (!user || !ok) {
    await recordFailure(key, meta.ip, (tx) =>
      recordActivity(tx, { userId: user?.id ?? null, username: user?.username ?? key.slice(0, 64), ip: meta.ip }, {
        event: "user_login_failed",
        description: user ? "Wrong password" : "Unknown user",
      }),
    );
    metrics().signIns.inc({ result: "failure" });
    throw unauthorized(MSG.badCredentials);
  }
  await clearFailures(key, meta.ip);
  const actor = { userId: user.id, username: user.username, ip: meta.ip };
  if (!user.isActive) {
    await transaction((tx) => recordActivity(tx, actor, { event: "user_login_failed", description: "Account is disabled" }));
    metrics().signIns.inc({ result: "disabled" });
    throw new AppError(401, MSG.disabled);
  }

  if (user.mfaEnabled) {
    const token = await createSession(getDb(), user.id, "password_verified", meta);
    metrics().signIns.inc({ result: "mfa_required" });
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
  // The session and its activity record exist together or not at all.
  const token = await transaction(async (tx) => {
    const t = await createSession(tx, user.id, "authenticated", meta);
    await recordActivity(tx, actor, { event: "user_login" });
    return t;
  });
  metrics().signIns.inc({ result: "success" });
  const { requireMfa } = await getSettings();
  return { kind: "signed_in", userId: user.id, token, mfaSetupRequired: requireMfa && !user.mfaEnabled };
}

/** POST /auth/logout: end this session. */
export async function logout(sessionToken: string, actor: { userId: number; username: string; ip: string | null }) {
  await transaction(async (tx) => {
    await deleteSessionByToken(sessionToken, tx);
    await recordActivity(tx, actor, { event: "user_logout" });
  });
}
