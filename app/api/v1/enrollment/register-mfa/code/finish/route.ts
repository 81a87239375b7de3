import { json, route } from "@/lib/http/route";
import { ENROLLMENT_COOKIE } from "@/lib/http/session-cookies";
import { registerMfaFinishSchema } from "@/lib/enrollment/schema";
import { registerMfaFinish, verifyEnrollmentSession } from "@/lib/enrollment/service";

/** defguard proxy: confirm the method with its first code; MFA is on → {recovery_codes}. */
export const POST = route({ access: "public", body: registerMfaFinishSchema, skipXsrf: true, proxyErrors: true }, async ({ body, cookies, ip }) =>
  json(await registerMfaFinish(verifyEnrollmentSession(cookies[ENROLLMENT_COOKIE]), body, ip)),
);
