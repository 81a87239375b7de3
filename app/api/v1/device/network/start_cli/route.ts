import { actorOf, json, route } from "@/lib/http/route";
import { networkDeviceCliSchema } from "@/lib/devices/schema";
import { startNetworkDeviceCli } from "@/lib/enrollment/service";

/** A network device the defguard CLI will configure: 201 {enrollment_token, enrollment_url}. */
export const POST = route({ access: "admin", body: networkDeviceCliSchema }, async (ctx) =>
  json(await startNetworkDeviceCli(actorOf(ctx), ctx.body), { status: 201 }),
);
