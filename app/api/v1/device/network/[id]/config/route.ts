import { route } from "@/lib/http/route";
import { networkDeviceConfig } from "@/lib/devices/network";
import { parseId } from "@/lib/validation";

export const GET = route({ access: "admin" }, async ({ params }) => (await networkDeviceConfig(parseId(params.id))).config);
