import { actorOf, route } from "@/lib/http/route";
import { userBulkSchema } from "@/lib/bulk/schema";
import { bulkUsers } from "@/lib/bulk/service";

/** A bulk action on users named by id or by the users list's filter: {action, count, changed}. */
export const POST = route({ access: "admin", body: userBulkSchema, maxBody: 2 * 1024 * 1024 }, async (ctx) => bulkUsers(actorOf(ctx), ctx.body));
