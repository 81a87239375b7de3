import { route } from "@/lib/http/route";
import { getDb } from "@/lib/db";
import { statsQuerySchema } from "@/lib/stats/schema";
import { DEFAULT_WINDOW_MS, locationUserStats } from "@/lib/stats/service";
import { requireLocation } from "@/lib/locations/service";
import { parseId } from "@/lib/validation";

/** Devices active in the window, grouped by user, each with its transfer series. */
export const GET = route({ access: "admin", query: statsQuerySchema }, async ({ params, query }) => {
  const id = parseId(params.id);
  await requireLocation(getDb(), id);
  return locationUserStats(id, query.from ?? new Date(Date.now() - DEFAULT_WINDOW_MS));
});
