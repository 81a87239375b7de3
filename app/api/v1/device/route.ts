import { route } from "@/lib/http/route";
import { listDevicesJson } from "@/lib/devices/service";

export const GET = route({ access: "admin" }, async () =>
  new Response(await listDevicesJson(), { headers: { "content-type": "application/json", "cache-control": "no-store" } }),
);
