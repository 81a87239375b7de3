import { actorOf, json, route } from "@/lib/http/route";
import { deleteAuthKey } from "@/lib/authkeys/service";
import { parseId } from "@/lib/validation";

export const DELETE = route({ access: "self-or-admin", self: "username" }, async (ctx) => {
  await deleteAuthKey(actorOf(ctx), ctx.params.username, parseId(ctx.params.id));
  return json(null);
});
