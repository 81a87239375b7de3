import { actorOf, json, route } from "@/lib/http/route";
import { keyRenameSchema } from "@/lib/apitokens/schema";
import { renameApiToken } from "@/lib/apitokens/service";
import { parseId } from "@/lib/validation";

export const POST = route({ access: "admin", body: keyRenameSchema }, async (ctx) => {
  await renameApiToken(actorOf(ctx), ctx.params.username, parseId(ctx.params.id), ctx.body.name);
  return json(null);
});
