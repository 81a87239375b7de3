import { actorOf, json, route } from "@/lib/http/route";
import { aclRuleSchema } from "@/lib/acl/schema";
import { createRule, listRules } from "@/lib/acl/service";

export const GET = route({ access: "admin", enterprise: true }, async () => listRules());

export const POST = route({ access: "admin", enterprise: true, body: aclRuleSchema }, async (ctx) => json(await createRule(actorOf(ctx), ctx.body), { status: 201 }));
