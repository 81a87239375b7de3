import { actorOf, route, withParams } from "@/lib/http/route";
import { userBulkSchema } from "@/lib/bulk/schema";
import { bulkUsers } from "@/lib/bulk/service";
import { DELETE as deleteUser, GET as getUser, PUT as putUser } from "../[username]/route";

/** A bulk action on users named by id or by the users list's filter: {action, count, changed}. */
export const POST = route({ access: "admin", body: userBulkSchema, maxBody: 2 * 1024 * 1024 }, async (ctx) => bulkUsers(actorOf(ctx), ctx.body));

// The path is also /user/{username} for a user named "bulk" (the methods bulk actions do not use).
export const GET = withParams(getUser, { username: "bulk" });
export const PUT = withParams(putUser, { username: "bulk" });
export const DELETE = withParams(deleteUser, { username: "bulk" });
