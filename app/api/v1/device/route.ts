import { jsonBytes, route } from "@/lib/http/route";
import { listDevicesJson } from "@/lib/devices/service";

/** Every user device, JSON built by PostgreSQL (cached until the devices change). */
export const GET = route({ access: "admin" }, async () => jsonBytes(await listDevicesJson()));
