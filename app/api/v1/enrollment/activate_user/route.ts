import { route } from "@/lib/http/route";
import { clearedEnrollmentCookie, ENROLLMENT_COOKIE, withCookies } from "@/lib/http/session-cookies";
import { activateUserSchema } from "@/lib/enrollment/schema";
import { activateUser, verifyEnrollmentSession } from "@/lib/enrollment/service";

/** defguard proxy: the enrolling user's password (and phone); ends the enrolment session. Empty 200. */
export const POST = route({ access: "public", body: activateUserSchema, skipXsrf: true, proxyErrors: true }, async ({ body, cookies, ip }) => {
  await activateUser(verifyEnrollmentSession(cookies[ENROLLMENT_COOKIE]), body, ip);
  return withCookies(new Response(null, { status: 200 }), [clearedEnrollmentCookie()]);
});
