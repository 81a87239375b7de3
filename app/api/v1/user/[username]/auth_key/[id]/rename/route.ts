import { actorOf, json, route } from "@/lib/http/route";
import { keyRenameSchema } from "@/lib/apitokens/schema";
import { renameAuthKey } from "@/lib/authkeys/service";
import { parseId } from "@/lib/validation";

export const POST = route({ access: "self-or-admin", self: "username", body: keyRenameSchema }, async (ctx) => {
  await renameAuthKey(actorOf(ctx), ctx.params.username, parseId(ctx.params.id), ctx.body.name);
  return json(null);
});
