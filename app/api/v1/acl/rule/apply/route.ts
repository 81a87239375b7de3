import { actorOf, json, route } from "@/lib/http/route";
import { applyRulesSchema } from "@/lib/acl/schema";
import { applyRules } from "@/lib/acl/service";

/** PUT /acl/rule/apply {rules: [ids]}: deploy pending rule changes. */
export const PUT = route({ access: "admin", enterprise: true, body: applyRulesSchema }, async (ctx) => {
  await applyRules(actorOf(ctx), ctx.body.rules);
  return json(null);
});
