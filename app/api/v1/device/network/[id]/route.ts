import { actorOf, json, route } from "@/lib/http/route";
import { networkDeviceUpdateSchema } from "@/lib/devices/schema";
import { deleteNetworkDevice, getNetworkDevice, updateNetworkDevice } from "@/lib/devices/network";
import { parseId } from "@/lib/validation";

export const GET = route({ access: "admin" }, async ({ params }) => getNetworkDevice(parseId(params.id)));

export const PUT = route({ access: "admin", body: networkDeviceUpdateSchema }, async (ctx) =>
  updateNetworkDevice(actorOf(ctx), parseId(ctx.params.id), ctx.body),
);

export const DELETE = route({ access: "admin" }, async (ctx) => {
  await deleteNetworkDevice(actorOf(ctx), parseId(ctx.params.id));
  return json(null);
});
