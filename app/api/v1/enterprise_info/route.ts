import { route } from "@/lib/http/route";
import { enterpriseInfo } from "@/lib/platform/unbuilt";

export const GET = route({ access: "admin" }, async () => enterpriseInfo());
