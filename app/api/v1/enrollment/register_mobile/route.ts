import { route } from "@/lib/http/route";
import { ENROLLMENT_COOKIE } from "@/lib/http/session-cookies";
import { registerMobileSchema } from "@/lib/enrollment/schema";
import { registerMobileAuth, verifyEnrollmentSession } from "@/lib/enrollment/service";

/** defguard proxy: defguard's mobile app registers its biometric MFA key for a device of the enrolling user. Empty 200. */
export const POST = route({ access: "public", body: registerMobileSchema, skipXsrf: true, proxyErrors: true }, async ({ body, cookies, ip }) => {
  await registerMobileAuth(verifyEnrollmentSession(cookies[ENROLLMENT_COOKIE]), body, ip);
  return new Response(null, { status: 200 });
});
