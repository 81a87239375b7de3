import { route } from "@/lib/http/route";
import { locationGatewaysWithSync } from "@/lib/gateways/sync";
import { parseId } from "@/lib/validation";

export const GET = route({ access: "admin" }, async ({ params }) => locationGatewaysWithSync(parseId(params.id)));
