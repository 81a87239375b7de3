import { route } from "@/lib/http/route";
import { listDeliveries } from "@/lib/webhooks/service";

export const GET = route({ access: "admin" }, async ({ params }) => listDeliveries(params.id));
