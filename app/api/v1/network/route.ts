import { actorOf, json, route } from "@/lib/http/route";
import { locationSchema } from "@/lib/locations/schema";
import { createLocation, listLocations } from "@/lib/locations/service";

export const GET = route({ access: "admin" }, async () => listLocations());

export const POST = route({ access: "admin", body: locationSchema }, async (ctx) =>
  json(await createLocation(actorOf(ctx), ctx.body), { status: 201 }),
);
