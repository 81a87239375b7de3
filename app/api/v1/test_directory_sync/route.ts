import { route } from "@/lib/http/route";
import { testDirectorySync } from "@/lib/extid/directory/sync";

/** defguard: 200 {message, success} whether or not the directory answered. */
export const GET = route({ access: "admin", enterprise: true }, async () => testDirectorySync());
