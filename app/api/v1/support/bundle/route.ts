import { route } from "@/lib/http/route";
import { bundleFileName, supportBundleJson } from "@/lib/support/service";

/** The support bundle as a JSON file download: configuration, versions, gateway states, recent logs. */
export const GET = route({ access: "admin" }, async () =>
  new Response(await supportBundleJson(), {
    headers: {
      "content-type": "application/json",
      "content-disposition": `attachment; filename="${bundleFileName()}"`,
      "cache-control": "no-store",
    },
  }),
);
