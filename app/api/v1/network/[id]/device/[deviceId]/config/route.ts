import { route } from "@/lib/http/route";
import { confDownload } from "@/lib/http/download";
import { deviceConfigText } from "@/lib/devices/service";
import { parseId } from "@/lib/validation";

/** The device's wg-quick config for this location, as text (the private key is a placeholder). */
export const GET = route({ access: "user" }, async ({ params, caller }) => {
  const { device, config } = await deviceConfigText(parseId(params.id), parseId(params.deviceId, "deviceId"), {
    userId: caller!.user.id,
    isAdmin: caller!.isAdmin,
  });
  return confDownload(config.network_name, device.name, config.config);
});
