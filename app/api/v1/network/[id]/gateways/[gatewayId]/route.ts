import { actorOf, json, route } from "@/lib/http/route";
import { deleteGateway } from "@/lib/gateways/service";
import { parseId } from "@/lib/validation";

export const DELETE = route({ access: "admin" }, async (ctx) => {
  await deleteGateway(actorOf(ctx), parseId(ctx.params.id), parseId(ctx.params.gatewayId, "gatewayId"));
  return json(null);
});
