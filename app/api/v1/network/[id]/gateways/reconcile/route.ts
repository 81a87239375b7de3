import { actorOf, route } from "@/lib/http/route";
import { reconcileNow } from "@/lib/gateways/sync";
import { parseId } from "@/lib/validation";

/** "Reconcile now": the full configuration to every gateway of the location. */
export const POST = route({ access: "admin" }, async (ctx) => reconcileNow(actorOf(ctx), parseId(ctx.params.id)));
