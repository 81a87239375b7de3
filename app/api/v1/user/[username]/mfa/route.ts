import { actorOf, json, route } from "@/lib/http/route";
import { disableMfa } from "@/lib/mfa/service";
import { requireUserId } from "@/lib/users/service";

/** An admin switches a user's MFA off. */
export const DELETE = route({ access: "admin", fresh: true }, async (ctx) => {
  await disableMfa(actorOf(ctx), await requireUserId(ctx.params.username));
  return json(null);
});
