import { route } from "@/lib/http/route";
import { staleAccessQuery } from "@/lib/reports/schema";
import { staleAccess, staleAccessCsv } from "@/lib/reports/service";

/** The stale-access report (JSON, or CSV with ?format=csv as a download). */
export const GET = route({ access: "admin", query: staleAccessQuery }, async ({ query }) => {
  const report = await staleAccess(query.days);
  if (query.format === "json") return report;
  return new Response(staleAccessCsv(report), {
    headers: {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="stale-access-${query.days}d-${report.generated_at.slice(0, 10)}.csv"`,
      "cache-control": "no-store",
    },
  });
});
