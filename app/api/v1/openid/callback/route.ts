import { AppError } from "@/lib/errors";
import { json, route } from "@/lib/http/route";
import { serializeCookie } from "@/lib/http/cookies";
import { sessionCookies, withCookies } from "@/lib/http/session-cookies";
import { callbackSchema } from "@/lib/extid/schema";
import { FLOW_COOKIE, FLOW_COOKIE_PATH, openidCallback } from "@/lib/extid/login";
import { getUserInfo } from "@/lib/users/service";

/**
 * The callback page posts the provider's {code, state}. Answers as POST /auth: 200 {user, url}
 * signed in, 201 with the second-factor methods when the account has MFA on. The flow cookie
 * is spent whatever the outcome.
 */
export const POST = route({ access: "public", body: callbackSchema, skipXsrf: true }, async ({ body, cookies, ip, userAgent }) => {
  const spent = serializeCookie(FLOW_COOKIE, "", { httpOnly: true, sameSite: "Lax", maxAge: 0, path: FLOW_COOKIE_PATH });
  try {
    const result = await openidCallback(body, cookies[FLOW_COOKIE], { ip, userAgent });
    if (result.kind === "mfa_required") return withCookies(json(result.mfa, { status: 201 }), [spent, ...sessionCookies(result.token)]);
    const user = await getUserInfo(result.userId);
    const answer = result.mfaSetupRequired ? { user, url: null, mfa_setup_required: true } : { user, url: null };
    return withCookies(json(answer), [spent, ...sessionCookies(result.token)]);
  } catch (err) {
    if (err instanceof AppError) return withCookies(json({ msg: err.msg }, { status: err.status }), [spent]);
    throw err;
  }
});
