import { route } from "@/lib/http/route";
import { supportConfigurationJson } from "@/lib/support/service";

/** The instance's configuration for support, every secret redacted. */
export const GET = route({ access: "admin" }, async () =>
  new Response(await supportConfigurationJson(), { headers: { "content-type": "application/json", "cache-control": "no-store" } }),
);
