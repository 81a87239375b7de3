import { route } from "@/lib/http/route";
import { validateIpsSchema } from "@/lib/devices/schema";
import { nextFreeIps, validateIps } from "@/lib/devices/network";
import { parseId } from "@/lib/validation";

/** GET /device/network/ip/{locationId}: the next free address in each CIDR. */
export const GET = route({ access: "admin" }, async ({ params }) => nextFreeIps(parseId(params.id)));

/** POST /device/network/ip/{locationId} {ips}: is each address valid and free? */
export const POST = route({ access: "admin", body: validateIpsSchema }, async ({ params, body }) =>
  validateIps(parseId(params.id), body.ips, body.device_id),
);
