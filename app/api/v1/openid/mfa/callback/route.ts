import { route } from "@/lib/http/route";
import { callbackSchema } from "@/lib/extid/schema";
import { completeMfaCallback } from "@/lib/extid/clientmfa";

/**
 * The page at /openid/mfa/callback posts the provider's {code, state} of a desktop client's
 * MFA login (location MFA "external"): 200 {location, device} once the login is confirmed; the
 * client's /client-mfa/finish then answers the preshared key.
 */
export const POST = route({ access: "public", body: callbackSchema, skipXsrf: true }, async ({ body, ip, userAgent }) => completeMfaCallback(body, { ip, userAgent }));
