import { actorOf, route } from "@/lib/http/route";
import { regenerateSecret } from "@/lib/oidc/clients";

/** POST /oauth/{client_id}/secret: a new client secret (tokens issued to the app are revoked). */
export const POST = route({ access: "admin" }, async (ctx) => regenerateSecret(actorOf(ctx), ctx.params.client_id));
