import { route } from "@/lib/http/route";
import { listGateways } from "@/lib/gateways/service";
import { requireLocation } from "@/lib/locations/service";
import { getDb } from "@/lib/db";
import { parseId } from "@/lib/validation";

export const GET = route({ access: "admin" }, async ({ params }) => {
  const id = parseId(params.id);
  await requireLocation(getDb(), id);
  return listGateways(id);
});
