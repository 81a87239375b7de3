import { json, route } from "@/lib/http/route";
import { availableUpdate } from "@/lib/platform/updates";

/** The newest release from DEFGUARD_UPDATE_URL when newer than this console, else null. */
export const GET = route({ access: "admin" }, async () => json(await availableUpdate()));
