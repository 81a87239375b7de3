import { z } from "zod";
import { requiredOrType, V, httpUrlSchema } from "../validation";

/** Scopes an app may ask for (claims per scope: lib/oidc/provider.ts). */
export const OIDC_SCOPES = ["openid", "profile", "email", "phone", "groups"] as const;

const redirectUri = httpUrlSchema({ fragment: false });

/** POST /oauth and PUT /oauth/{client_id}: defguard's OpenidClient (ids and secret are the server's). */
export const openidClientSchema = z.object({
  name: z.string(requiredOrType).trim().min(1, { error: V.required }).max(128, { error: V.tooLong }).regex(/^[^<>\p{Cc}]+$/u, { error: V.forbiddenChars }),
  redirect_uri: z.array(redirectUri, { error: V.invalidType }).min(1, { error: V.required }).max(32),
  scope: z.array(z.enum(OIDC_SCOPES, { error: V.invalidOption }), { error: V.invalidType }).min(1, { error: V.required }).max(OIDC_SCOPES.length),
  enabled: z.boolean({ error: V.invalidType }).default(true),
});
export type OpenidClientInput = z.infer<typeof openidClientSchema>;

/** POST /oauth/{client_id}: enable or disable. */
export const openidClientStateSchema = z.object({ enabled: z.boolean(requiredOrType) });
