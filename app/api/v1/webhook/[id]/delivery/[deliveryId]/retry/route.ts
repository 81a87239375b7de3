import { json, route } from "@/lib/http/route";
import { retryDelivery } from "@/lib/webhooks/service";

export const POST = route({ access: "admin" }, async ({ params }) => {
  await retryDelivery(params.id, params.deliveryId);
  return json({});
});
