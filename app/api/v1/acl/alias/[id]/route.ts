import { actorOf, json, route } from "@/lib/http/route";
import { aclAliasSchema } from "@/lib/acl/schema";
import { deleteAlias, getAlias, updateAlias } from "@/lib/acl/service";
import { parseId } from "@/lib/validation";

export const GET = route({ access: "admin", enterprise: true }, async ({ params }) => getAlias(parseId(params.id)));

/** PUT /acl/alias/{id}: an applied alias gets a pending "modified" copy whose `rules` are the rules it will change. */
export const PUT = route({ access: "admin", enterprise: true, body: aclAliasSchema }, async (ctx) => updateAlias(actorOf(ctx), parseId(ctx.params.id), ctx.body));

/** DELETE /acl/alias/{id}: 409 while rules use it; discards a pending modification. */
export const DELETE = route({ access: "admin", enterprise: true }, async (ctx) => {
  await deleteAlias(actorOf(ctx), parseId(ctx.params.id));
  return json(null);
});
