import { route } from "@/lib/http/route";
import { statsQuerySchema } from "@/lib/stats/schema";
import { locationUserStatsChecked } from "@/lib/stats/service";
import { parseId } from "@/lib/validation";

/** Devices active in the window, grouped by user, each with its transfer series. */
export const GET = route({ access: "admin", query: statsQuerySchema }, async ({ params, query }) =>
  locationUserStatsChecked(parseId(params.id), query.from),
);
