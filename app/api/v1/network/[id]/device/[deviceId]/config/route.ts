import { route } from "@/lib/http/route";
import { deviceConfigText } from "@/lib/devices/service";
import { parseId } from "@/lib/validation";

/** The device's wg-quick config for this location, as text (the private key is a placeholder). */
export const GET = route({ access: "user" }, async ({ params, caller }) => {
  const { device, config } = await deviceConfigText(parseId(params.id), parseId(params.deviceId, "deviceId"), {
    userId: caller!.user.id,
    isAdmin: caller!.isAdmin,
  });
  const file = `${config.network_name}-${device.name}`.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 60);
  return new Response(config.config, {
    headers: {
      "content-type": "text/plain; charset=utf-8",
      "content-disposition": `attachment; filename="${file}.conf"`,
      "cache-control": "no-store",
    },
  });
});
