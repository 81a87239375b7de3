import { actorOf, json, route } from "@/lib/http/route";
import { groupsAssignSchema } from "@/lib/groups/schema";
import { assignGroups } from "@/lib/groups/service";

export const POST = route({ access: "admin", body: groupsAssignSchema }, async (ctx) => {
  await assignGroups(actorOf(ctx), ctx.body.groups, ctx.body.users);
  return json(null);
});
