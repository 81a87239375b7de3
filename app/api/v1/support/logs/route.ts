import { route } from "@/lib/http/route";
import { supportLogs } from "@/lib/support/service";

/** The last 1,000 lines this console process logged (plain text), secrets redacted. */
export const GET = route({ access: "admin" }, async () =>
  new Response(await supportLogs(), { headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } }),
);
