import { route } from "@/lib/http/route";
import { statsQuerySchema } from "@/lib/stats/schema";
import { DEFAULT_WINDOW_MS, networkStats } from "@/lib/stats/service";

/** Activity and transfer of all locations since ?from (default: one hour ago). */
export const GET = route({ access: "admin", query: statsQuerySchema }, async ({ query }) =>
  networkStats(query.from ?? new Date(Date.now() - DEFAULT_WINDOW_MS)),
);
