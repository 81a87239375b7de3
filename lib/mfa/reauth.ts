import "server-only";
import { eq } from "drizzle-orm";
import { getDb } from "../db";
import { users } from "../db/schema";
import { badRequest, unauthorized } from "../errors";
import { recordActivity } from "../activity/service";
import { transaction } from "../events";
import { checkTotp } from "./service";
import { verifyPassword } from "../auth/password";
import { markReauthenticated, type Session } from "../auth/session";
import { assertNotLocked, clearFailures, recordFailure } from "../auth/throttle";
import type { ReauthInput } from "../auth/schema";

export const REAUTH_MSG = {
  wrongPassword: "password is incorrect",
  wrongCode: "code is invalid",
  noTotp: "your account has no authenticator app; confirm with your password",
} as const;

/**
 * POST /auth/reauth: the signed-in user proves the password or a TOTP code again, which makes
 * the session's proof fresh for changing sign-in security. Wrong answers count toward the
 * sign-in throttling like a failed sign-in.
 */
export async function reauthenticate(session: Session, meta: { ip: string | null }, input: ReauthInput): Promise<void> {
  const actor = { userId: session.user.id, username: session.user.username, ip: meta.ip };
  const [u] = await getDb().select().from(users).where(eq(users.id, session.user.id));
  if (input.code !== undefined && !u.totpEnabled) throw badRequest(REAUTH_MSG.noTotp, "code");
  await assertNotLocked(u.username, meta.ip);
  const method = input.code !== undefined ? "authenticator code" : "password";
  const ok = await transaction(async (tx) => {
    const good = input.code !== undefined ? await checkTotp(tx, u.id, input.code) : await verifyPassword(u.passwordHash, input.password!);
    if (!good) return false;
    await markReauthenticated(tx, session.id);
    await recordActivity(tx, actor, { event: "user_reauthenticated", description: `Confirmed with ${method}` });
    return true;
  });
  if (!ok) {
    await recordFailure(u.username, meta.ip, (tx) =>
      recordActivity(tx, actor, { event: "user_login_failed", description: `Confirming identity failed: wrong ${method}` }),
    );
    throw input.code !== undefined ? badRequest(REAUTH_MSG.wrongCode, "code") : badRequest(REAUTH_MSG.wrongPassword, "password");
  }
  await clearFailures(u.username, meta.ip);
}
