import { actorOf, json, route } from "@/lib/http/route";
import { deleteApiToken } from "@/lib/apitokens/service";
import { parseId } from "@/lib/validation";

export const DELETE = route({ access: "admin" }, async (ctx) => {
  await deleteApiToken(actorOf(ctx), ctx.params.username, parseId(ctx.params.id));
  return json(null);
});
