import { actorOf, json, route } from "@/lib/http/route";
import { applyAliasesSchema } from "@/lib/acl/schema";
import { applyAliases } from "@/lib/acl/service";

/** PUT /acl/alias/apply {aliases: [ids]}: deploy pending alias changes. */
export const PUT = route({ access: "admin", enterprise: true, body: applyAliasesSchema }, async (ctx) => {
  await applyAliases(actorOf(ctx), ctx.body.aliases);
  return json(null);
});
