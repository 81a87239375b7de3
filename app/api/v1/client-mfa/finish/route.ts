import { json, route } from "@/lib/http/route";
import { clientMfaFinishSchema } from "@/lib/clientmfa/schema";
import { finishClientMfa } from "@/lib/clientmfa/service";

/** defguard proxy: finish a desktop client's MFA login with its code → {preshared_key}; the device becomes a peer. */
export const POST = route({ access: "public", body: clientMfaFinishSchema, skipXsrf: true, proxyErrors: true }, async ({ body, ip }) => json(await finishClientMfa(body, ip)));
