import { json, route } from "@/lib/http/route";
import { clearedEnrollmentCookie, ENROLLMENT_COOKIE, withCookies } from "@/lib/http/session-cookies";
import { withProxyErrors } from "@/lib/http/proxy-errors";
import { enrollmentCreateDeviceSchema } from "@/lib/enrollment/schema";
import { enrollNetworkDevice, verifyEnrollmentSession } from "@/lib/enrollment/service";

/** defguard proxy: the device's public key for the token of the enrolment session (or `token`). */
export const POST = route({ access: "public", body: enrollmentCreateDeviceSchema, skipXsrf: true }, async ({ body, cookies, ip }) =>
  withProxyErrors(async () => {
    const answer = await enrollNetworkDevice(verifyEnrollmentSession(cookies[ENROLLMENT_COOKIE]), body, ip);
    return withCookies(json(answer), [clearedEnrollmentCookie()]);
  }),
);
