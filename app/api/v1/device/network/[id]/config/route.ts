import { route } from "@/lib/http/route";
import { networkDeviceConfig } from "@/lib/devices/network";
import { parseId } from "@/lib/validation";

/** The network device's wg-quick config as a .conf download (the private key is a placeholder). */
export const GET = route({ access: "admin" }, async ({ params }) => {
  const { device, config } = await networkDeviceConfig(parseId(params.id));
  const file = `${config.network_name}-${device.name}`.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 60);
  return new Response(config.config, {
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "content-disposition": `attachment; filename="${file}.conf"`,
      "cache-control": "no-store",
    },
  });
});
