import { route } from "@/lib/http/route";
import { enterpriseInfo } from "@/lib/enterprise/service";

export const GET = route({ access: "admin" }, async () => enterpriseInfo());
