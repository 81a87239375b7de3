import { json, route } from "@/lib/http/route";
import { databaseReachable } from "@/lib/health/service";

export const dynamic = "force-dynamic";

export const GET = route({ access: "public" }, async () => {
  const db = await databaseReachable();
  return json({ status: db ? "ok" : "unavailable", database: db }, { status: db ? 200 : 503 });
});
