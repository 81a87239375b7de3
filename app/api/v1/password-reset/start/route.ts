import { json, route } from "@/lib/http/route";
import { passwordResetCookie, withCookies } from "@/lib/http/session-cookies";
import { passwordResetStartSchema } from "@/lib/enrollment/schema";
import { startPasswordResetSession } from "@/lib/enrollment/password-reset";

/** defguard proxy: check a reset token → {deadline_timestamp}, and open the reset session. */
export const POST = route({ access: "public", body: passwordResetStartSchema, skipXsrf: true, proxyErrors: true }, async ({ body, ip }) => {
  const { body: answer, session } = await startPasswordResetSession(body.token, ip);
  return withCookies(json(answer), [passwordResetCookie(session.value, session.maxAge)]);
});
