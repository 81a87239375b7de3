import { actorOf, json, route } from "@/lib/http/route";
import { addMemberSchema, groupUpdateSchema } from "@/lib/groups/schema";
import { addMember, deleteGroup, getGroupInfo, updateGroup } from "@/lib/groups/service";

export const GET = route({ access: "admin" }, async ({ params }) => getGroupInfo(params.name));

/** PUT /group/{originalName}. */
export const PUT = route({ access: "admin", body: groupUpdateSchema }, async (ctx) =>
  updateGroup(actorOf(ctx), ctx.params.name, ctx.body),
);

export const DELETE = route({ access: "admin" }, async (ctx) => {
  await deleteGroup(actorOf(ctx), ctx.params.name);
  return json(null);
});

/** POST /group/{group} {username}: add a member. */
export const POST = route({ access: "admin", body: addMemberSchema }, async (ctx) => {
  await addMember(actorOf(ctx), ctx.params.name, ctx.body.username);
  return json(null);
});
