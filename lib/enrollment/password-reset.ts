import "server-only";
import { AppError } from "../errors";
import { sha256hex } from "../crypto";
import { checkPasswordResetToken, requestPasswordReset, resetPasswordWithHash } from "../users/service";
import { signPasswordResetSession } from "./service";

/**
 * The password reset API of defguard's proxy, served by the console: /password-reset/request
 * {email} e-mails a link, /start {token} checks it and opens a session cookie (the token's
 * hash, signed), /reset {password} sets the password and spends the token. The token rules
 * are the users service's (lib/users/service.ts), shared with the admin-started reset.
 */
export { requestPasswordReset };

/** POST /password-reset/start: PasswordResetStartResponse {deadline_timestamp} and the session. */
export async function startPasswordResetSession(token: string, ip: string | null) {
  const hash = sha256hex(token);
  const { expiresAt } = await checkPasswordResetToken(hash, ip);
  return { body: { deadline_timestamp: Math.floor(expiresAt.getTime() / 1000) }, session: signPasswordResetSession(hash, expiresAt) };
}

/** POST /password-reset/reset: the password for the session's (or the given) token. */
export async function finishPasswordReset(sessionHash: string | null, input: { password: string; token: string | null }, ip: string | null) {
  const hash = input.token ? sha256hex(input.token) : sessionHash;
  if (!hash) throw new AppError(401, "no password reset session: start with /password-reset/start");
  await resetPasswordWithHash(hash, input.password, ip);
}
