import { json, route } from "@/lib/http/route";
import { clearedEnrollmentCookie, ENROLLMENT_COOKIE, withCookies } from "@/lib/http/session-cookies";
import { enrollmentCreateDeviceSchema } from "@/lib/enrollment/schema";
import { enrollDevice, verifyEnrollmentSession } from "@/lib/enrollment/service";

/**
 * defguard proxy: a device for the token of the enrolment session (or `token`): the key of a
 * network device waiting for `dg`, or a new device of the enrolling user. DeviceConfigResponse.
 */
export const POST = route({ access: "public", body: enrollmentCreateDeviceSchema, skipXsrf: true, proxyErrors: true }, async ({ body, cookies, ip }) => {
  const { body: answer, endsSession } = await enrollDevice(verifyEnrollmentSession(cookies[ENROLLMENT_COOKIE]), body, ip);
  return endsSession ? withCookies(json(answer), [clearedEnrollmentCookie()]) : json(answer);
});
