import { actorOf, json, route } from "@/lib/http/route";
import { importSchema } from "@/lib/locations/schema";
import { importLocation } from "@/lib/locations/import";

/** A wg-quick file (up to 512 KiB) becomes a location; its peers come back for mapping. */
export const POST = route({ access: "admin", body: importSchema, maxBody: 600 * 1024 }, async (ctx) =>
  json(await importLocation(actorOf(ctx), ctx.body), { status: 201 }),
);
