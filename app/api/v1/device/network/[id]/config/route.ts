import { route } from "@/lib/http/route";
import { confDownload } from "@/lib/http/download";
import { networkDeviceConfig } from "@/lib/devices/network";
import { parseId } from "@/lib/validation";

/** The network device's wg-quick config as a .conf download (the private key is a placeholder). */
export const GET = route({ access: "admin" }, async ({ params }) => {
  const { device, config } = await networkDeviceConfig(parseId(params.id));
  return confDownload(config.network_name, device.name, config.config);
});
