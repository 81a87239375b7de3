import { json, route } from "@/lib/http/route";
import { clientMfaStartSchema } from "@/lib/clientmfa/schema";
import { startClientMfa } from "@/lib/clientmfa/service";
import { registerExternalClientMfa } from "@/lib/extid/clientmfa";

// Method 2 (external OpenID) goes through the external provider of lib/extid, which sits above
// lib/clientmfa in the layers: it is plugged in here, where both are composed.
registerExternalClientMfa();

/** defguard proxy: start a desktop client's MFA login to a location → {token} (method 2: and the provider's `url`). */
export const POST = route({ access: "public", body: clientMfaStartSchema, skipXsrf: true, proxyErrors: true }, async ({ body }) => json(await startClientMfa(body)));
