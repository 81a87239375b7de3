import { actorOf, route } from "@/lib/http/route";
import { locationSyncOverview, updateSyncSettings } from "@/lib/gateways/sync";
import { syncSettingsSchema } from "@/lib/gateways/schema";
import { parseId } from "@/lib/validation";

export const GET = route({ access: "admin" }, async ({ params }) => locationSyncOverview(parseId(params.id)));

export const PUT = route({ access: "admin", body: syncSettingsSchema }, async (ctx) => updateSyncSettings(actorOf(ctx), parseId(ctx.params.id), ctx.body));
