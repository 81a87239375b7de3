import { route } from "@/lib/http/route";
import { getEssentials } from "@/lib/settings/service";

export const GET = route({ access: "public" }, async () => getEssentials());
