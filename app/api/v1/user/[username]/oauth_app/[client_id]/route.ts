import { actorOf, json, route } from "@/lib/http/route";
import { revokeConsent } from "@/lib/oidc/clients";

/** DELETE /user/{username}/oauth_app/{client_id}: revoke consent to an app, and its tokens. */
export const DELETE = route({ access: "self-or-admin", self: "username" }, async (ctx) => {
  await revokeConsent(actorOf(ctx), ctx.params.username, ctx.params.client_id);
  return json(null);
});
