import { route } from "@/lib/http/route";
import { getAppInfo } from "@/lib/settings/info";

export const GET = route({ access: "user" }, async () => getAppInfo());
