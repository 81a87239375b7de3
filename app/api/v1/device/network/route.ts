import { actorOf, json, route } from "@/lib/http/route";
import { networkDeviceSchema } from "@/lib/devices/schema";
import { createNetworkDevice, listNetworkDevices } from "@/lib/devices/network";

export const GET = route({ access: "admin" }, async () => listNetworkDevices());

export const POST = route({ access: "admin", body: networkDeviceSchema }, async (ctx) =>
  json(await createNetworkDevice(actorOf(ctx), ctx.body), { status: 201 }),
);
