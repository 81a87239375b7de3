import { actorOf, json, route } from "@/lib/http/route";
import { deleteSecurityKey } from "@/lib/mfa/service";
import { requireUserId } from "@/lib/users/service";
import { parseId } from "@/lib/validation";

export const DELETE = route({ access: "self-or-admin", self: "username", fresh: true }, async (ctx) => {
  await deleteSecurityKey(actorOf(ctx), await requireUserId(ctx.params.username), parseId(ctx.params.keyId, "keyId"));
  return json(null);
});
