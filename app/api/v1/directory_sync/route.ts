import { route } from "@/lib/http/route";
import { syncDirectoryNow } from "@/lib/extid/directory/sync";

/** "Sync now": one directory sync right away; 200 with the outcome, 400 {msg} when it cannot run or failed. */
export const POST = route({ access: "admin", enterprise: true }, async () => syncDirectoryNow());
