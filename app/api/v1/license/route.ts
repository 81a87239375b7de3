import { route } from "@/lib/http/route";
import { licenceDetails } from "@/lib/enterprise/service";
import { enterpriseSettingsState } from "@/lib/settings/service";

export const GET = route({ access: "admin" }, async () => ({ ...(await licenceDetails()), enterprise_settings: await enterpriseSettingsState() }));
