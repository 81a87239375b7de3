import { route } from "@/lib/http/route";
import { statsQuerySchema } from "@/lib/stats/schema";
import { networkStats, windowStart } from "@/lib/stats/service";

/** Activity and transfer of all locations since ?from (default: one hour ago). */
export const GET = route({ access: "admin", query: statsQuerySchema }, async ({ query }) => networkStats(windowStart(query.from)));
