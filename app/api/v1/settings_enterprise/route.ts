import { actorOf, route } from "@/lib/http/route";
import { enterpriseSettingsPatchSchema } from "@/lib/settings/schema";
import { patchEnterpriseSettings, readEnterpriseSettings } from "@/lib/settings/service";

export const GET = route({ access: "user" }, async () => readEnterpriseSettings());

export const PATCH = route({ access: "admin", enterprise: true, body: enterpriseSettingsPatchSchema }, async (ctx) => patchEnterpriseSettings(actorOf(ctx), ctx.body));
