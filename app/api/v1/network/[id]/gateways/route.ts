import { route } from "@/lib/http/route";
import { locationGateways } from "@/lib/gateways/service";
import { parseId } from "@/lib/validation";

export const GET = route({ access: "admin" }, async ({ params }) => locationGateways(parseId(params.id)));
