import { actorOf, json, route } from "@/lib/http/route";
import { mapDevicesSchema } from "@/lib/locations/schema";
import { mapImportedDevices } from "@/lib/locations/import";
import { parseId } from "@/lib/validation";

export const POST = route({ access: "admin", body: mapDevicesSchema, maxBody: 4 * 1024 * 1024 }, async (ctx) =>
  json(await mapImportedDevices(actorOf(ctx), parseId(ctx.params.id), ctx.body.devices), { status: 201 }),
);
