import { json, route } from "@/lib/http/route";
import { clientMfaStartSchema } from "@/lib/clientmfa/schema";
import { startClientMfa } from "@/lib/clientmfa/service";

/** defguard proxy: start a desktop client's MFA login to a location → {token}. */
export const POST = route({ access: "public", body: clientMfaStartSchema, skipXsrf: true, proxyErrors: true }, async ({ body }) => json(await startClientMfa(body)));
