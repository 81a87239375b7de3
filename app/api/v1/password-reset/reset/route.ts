import { route } from "@/lib/http/route";
import { clearedPasswordResetCookie, PASSWORD_RESET_COOKIE, withCookies } from "@/lib/http/session-cookies";
import { passwordResetResetSchema } from "@/lib/enrollment/schema";
import { finishPasswordReset } from "@/lib/enrollment/password-reset";
import { verifyPasswordResetSession } from "@/lib/enrollment/service";

/** defguard proxy: the new password for the reset session; the token is spent. Empty 200. */
export const POST = route({ access: "public", body: passwordResetResetSchema, skipXsrf: true, proxyErrors: true }, async ({ body, cookies, ip }) => {
  await finishPasswordReset(verifyPasswordResetSession(cookies[PASSWORD_RESET_COOKIE]), body, ip);
  return withCookies(new Response(null, { status: 200 }), [clearedPasswordResetCookie()]);
});
