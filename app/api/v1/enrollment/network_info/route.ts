import { json, route } from "@/lib/http/route";
import { ENROLLMENT_COOKIE } from "@/lib/http/session-cookies";
import { networkInfoSchema } from "@/lib/enrollment/schema";
import { networkInfo, verifyEnrollmentSession } from "@/lib/enrollment/service";

/** defguard proxy: the configuration of an existing device of the enrolling user. DeviceConfigResponse. */
export const POST = route({ access: "public", body: networkInfoSchema, skipXsrf: true, proxyErrors: true }, async ({ body, cookies }) =>
  json(await networkInfo(verifyEnrollmentSession(cookies[ENROLLMENT_COOKIE]), body)),
);
