import { route } from "@/lib/http/route";
import { listDevices } from "@/lib/devices/service";

export const GET = route({ access: "admin" }, async () => listDevices());
