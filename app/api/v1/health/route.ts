import { json, route } from "@/lib/http/route";
import { databaseReachable, gatewaySideStarting } from "@/lib/health/service";

export const dynamic = "force-dynamic";

export const GET = route({ access: "public" }, async () => {
  const db = await databaseReachable();
  if (db && gatewaySideStarting()) return json({ status: "starting", database: true, gateways: false }, { status: 503 });
  return json({ status: db ? "ok" : "unavailable", database: db }, { status: db ? 200 : 503 });
});
