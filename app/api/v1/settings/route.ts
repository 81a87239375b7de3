import { actorOf, route } from "@/lib/http/route";
import { getDb } from "@/lib/db";
import { settingsPatchSchema } from "@/lib/settings/schema";
import { getSettings, patchSettings, settingsView } from "@/lib/settings/service";

export const GET = route({ access: "admin" }, async () => settingsView(await getSettings()));

const save = route({ access: "admin", body: settingsPatchSchema }, async (ctx) =>
  getDb().transaction((tx) => patchSettings(tx, actorOf(ctx), ctx.body)),
);
export const PUT = save;
export const PATCH = save;
