import { route } from "@/lib/http/route";
import { aclCheckQuery } from "@/lib/acl/schema";
import { checkAccess } from "@/lib/acl/explain";

/** GET /acl/check?location=&user= (or &device=)&destination=&port=&protocol=: the deciding rule, from the compiled firewall. */
export const GET = route({ access: "admin", enterprise: true, query: aclCheckQuery }, async (ctx) => checkAccess(ctx.query));
