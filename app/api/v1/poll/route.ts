import { json, route } from "@/lib/http/route";
import { pollSchema } from "@/lib/enrollment/schema";
import { poll } from "@/lib/enrollment/service";

/** defguard proxy: a desktop client's periodic fetch of its device's configuration (polling token). */
export const POST = route({ access: "public", body: pollSchema, skipXsrf: true, proxyErrors: true }, async ({ body }) => json(await poll(body.token)));
