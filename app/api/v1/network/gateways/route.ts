import { route } from "@/lib/http/route";
import { gatewaysByLocation } from "@/lib/gateways/service";

/** {"<location id>": [GatewayState]} */
export const GET = route({ access: "admin" }, async () => gatewaysByLocation());
