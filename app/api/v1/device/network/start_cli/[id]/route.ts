import { actorOf, json, route } from "@/lib/http/route";
import { newNetworkDeviceCliToken } from "@/lib/enrollment/service";
import { parseId } from "@/lib/validation";

/** A new defguard CLI token for a network device that is not configured yet. */
export const POST = route({ access: "admin" }, async (ctx) => json(await newNetworkDeviceCliToken(actorOf(ctx), parseId(ctx.params.id)), { status: 201 }));
