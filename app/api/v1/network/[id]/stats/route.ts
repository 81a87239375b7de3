import { route } from "@/lib/http/route";
import { statsQuerySchema } from "@/lib/stats/schema";
import { locationStats } from "@/lib/stats/service";
import { parseId } from "@/lib/validation";

export const GET = route({ access: "admin", query: statsQuerySchema }, async ({ params, query }) =>
  locationStats(parseId(params.id), query.from),
);
