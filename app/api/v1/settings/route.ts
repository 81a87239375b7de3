import { actorOf, route } from "@/lib/http/route";
import { settingsPatchSchema } from "@/lib/settings/schema";
import { readSettingsView, saveSettings } from "@/lib/settings/service";

export const GET = route({ access: "admin" }, async () => readSettingsView());

export const PUT = route({ access: "admin", body: settingsPatchSchema }, async (ctx) => saveSettings(actorOf(ctx), ctx.body, "put"));
export const PATCH = route({ access: "admin", body: settingsPatchSchema }, async (ctx) => saveSettings(actorOf(ctx), ctx.body, "patch"));
