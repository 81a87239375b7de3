import { actorOf, route } from "@/lib/http/route";
import { rotateToken } from "@/lib/gateways/service";
import { parseId } from "@/lib/validation";

/** A new token generation: older tokens stop working and their gateways are cut off. Answers like GET …/token. */
export const POST = route({ access: "admin" }, async (ctx) => rotateToken(actorOf(ctx), parseId(ctx.params.id)));
