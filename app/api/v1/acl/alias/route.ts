import { actorOf, json, route } from "@/lib/http/route";
import { aclAliasSchema } from "@/lib/acl/schema";
import { createAlias, listAliases } from "@/lib/acl/service";

export const GET = route({ access: "admin", enterprise: true }, async () => listAliases());

export const POST = route({ access: "admin", enterprise: true, body: aclAliasSchema }, async (ctx) => json(await createAlias(actorOf(ctx), ctx.body), { status: 201 }));
