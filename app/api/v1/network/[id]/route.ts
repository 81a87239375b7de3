import { actorOf, json, route } from "@/lib/http/route";
import { locationSchema } from "@/lib/locations/schema";
import { deleteLocation, getLocation, updateLocation } from "@/lib/locations/service";
import { parseId } from "@/lib/validation";

export const GET = route({ access: "admin" }, async ({ params }) => getLocation(parseId(params.id)));

export const PUT = route({ access: "admin", body: locationSchema }, async (ctx) =>
  updateLocation(actorOf(ctx), parseId(ctx.params.id), ctx.body),
);

export const DELETE = route({ access: "admin" }, async (ctx) => {
  await deleteLocation(actorOf(ctx), parseId(ctx.params.id));
  return json(null);
});
