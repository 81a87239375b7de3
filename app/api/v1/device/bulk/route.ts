import { actorOf, byBody, route, withParams } from "@/lib/http/route";
import { deviceBulkSchema, isDeviceCreationBody } from "@/lib/bulk/schema";
import { bulkDevices } from "@/lib/bulk/service";
import { POST as addUserDevice } from "../[id]/route";

/** A bulk action on devices named by id or by a list filter: {action, count, changed}. */
const bulk = route({ access: "admin", body: deviceBulkSchema, maxBody: 2 * 1024 * 1024 }, async (ctx) => bulkDevices(actorOf(ctx), ctx.body));

/**
 * The path is also POST /device/{username} for a user named "bulk": a device body ({name,
 * wireguard_pubkey, …}, no `action`) adds that user's device, as the dynamic route would.
 */
export const POST = byBody(bulk, withParams(addUserDevice, { id: "bulk" }), isDeviceCreationBody);
