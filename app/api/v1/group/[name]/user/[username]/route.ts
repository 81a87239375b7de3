import { actorOf, json, route } from "@/lib/http/route";
import { removeMember } from "@/lib/groups/service";

export const DELETE = route({ access: "admin" }, async (ctx) => {
  await removeMember(actorOf(ctx), ctx.params.name, ctx.params.username);
  return json(null);
});
