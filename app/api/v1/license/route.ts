import { route } from "@/lib/http/route";
import { licenceDetails } from "@/lib/enterprise/service";

export const GET = route({ access: "admin" }, async () => licenceDetails());
