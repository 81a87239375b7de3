import { actorOf, route } from "@/lib/http/route";
import { restoreDefaultBranding } from "@/lib/settings/branding";

/** defguard's "restore default branding" (the id is ignored, as in defguard 1.6): the settings after it. */
export const PUT = route({ access: "admin" }, async (ctx) => restoreDefaultBranding(actorOf(ctx)));
