import { actorOf, json, route } from "@/lib/http/route";
import { aclRuleSchema } from "@/lib/acl/schema";
import { deleteRule, getRule, updateRule } from "@/lib/acl/service";
import { parseId } from "@/lib/validation";

export const GET = route({ access: "admin", enterprise: true }, async ({ params }) => getRule(parseId(params.id)));

/** PUT /acl/rule/{id}: an applied rule gets a pending "modified" copy (answered), others change in place. */
export const PUT = route({ access: "admin", enterprise: true, body: aclRuleSchema }, async (ctx) => updateRule(actorOf(ctx), parseId(ctx.params.id), ctx.body));

/** DELETE /acl/rule/{id}: marks an applied rule for deletion, discards a pending one. */
export const DELETE = route({ access: "admin", enterprise: true }, async (ctx) => {
  await deleteRule(actorOf(ctx), parseId(ctx.params.id));
  return json(null);
});
