import { actorOf, json, route } from "@/lib/http/route";
import { renameSchema } from "@/lib/mfa/schema";
import { renameSecurityKey } from "@/lib/mfa/service";
import { requireUserId } from "@/lib/users/service";
import { parseId } from "@/lib/validation";

export const POST = route({ access: "self-or-admin", self: "username", body: renameSchema }, async (ctx) => {
  await renameSecurityKey(actorOf(ctx), await requireUserId(ctx.params.username), parseId(ctx.params.keyId, "keyId"), ctx.body.name);
  return json(null);
});
