import { json, route } from "@/lib/http/route";
import { enrollmentCookie, withCookies } from "@/lib/http/session-cookies";
import { enrollmentStartSchema } from "@/lib/enrollment/schema";
import { startEnrollment } from "@/lib/enrollment/service";

/** defguard proxy: check an enrolment token, answer what it is for, and open the enrolment session. */
export const POST = route({ access: "public", body: enrollmentStartSchema, skipXsrf: true, proxyErrors: true }, async ({ body, ip }) => {
  const { body: answer, session } = await startEnrollment(body.token, ip);
  return withCookies(json(answer), [enrollmentCookie(session.value, session.maxAge)]);
});
