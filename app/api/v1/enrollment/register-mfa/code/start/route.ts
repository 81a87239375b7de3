import { json, route } from "@/lib/http/route";
import { ENROLLMENT_COOKIE } from "@/lib/http/session-cookies";
import { registerMfaStartSchema } from "@/lib/enrollment/schema";
import { registerMfaStart, verifyEnrollmentSession } from "@/lib/enrollment/service";

/** defguard proxy: start setting up TOTP ({totp_secret}) or e-mail codes (a code is e-mailed) during the enrolment. */
export const POST = route({ access: "public", body: registerMfaStartSchema, skipXsrf: true, proxyErrors: true }, async ({ body, cookies, ip }) =>
  json(await registerMfaStart(verifyEnrollmentSession(cookies[ENROLLMENT_COOKIE]), body, ip)),
);
