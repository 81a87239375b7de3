import { actorOf, route } from "@/lib/http/route";
import { deviceBulkSchema } from "@/lib/bulk/schema";
import { bulkDevices } from "@/lib/bulk/service";

/** A bulk action on devices named by id or by a list filter: {action, count, changed}. */
export const POST = route({ access: "admin", body: deviceBulkSchema, maxBody: 2 * 1024 * 1024 }, async (ctx) => bulkDevices(actorOf(ctx), ctx.body));
