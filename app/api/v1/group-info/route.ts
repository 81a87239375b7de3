import { route } from "@/lib/http/route";
import { listGroupInfo } from "@/lib/groups/service";

export const GET = route({ access: "admin" }, async () => listGroupInfo());
