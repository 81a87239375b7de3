import { route } from "@/lib/http/route";
import { aclImpactQuery } from "@/lib/acl/schema";
import { aclImpact } from "@/lib/acl/explain";

/** GET /acl/impact?rules=&aliases=: who gains and loses access if these pending changes (default: all) were deployed. */
export const GET = route({ access: "admin", enterprise: true, query: aclImpactQuery }, async (ctx) => aclImpact(ctx.query));
