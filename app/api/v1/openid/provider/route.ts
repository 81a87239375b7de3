import { route } from "@/lib/http/route";
import { noOpenidProvider } from "@/lib/platform/unbuilt";

export const GET = route({ access: "admin" }, async () => noOpenidProvider());
