import { json, route } from "@/lib/http/route";
import { workerTokenAnswer } from "@/lib/provisioning/service";

/** A provisioning worker token (201 {token, grpc_url}, as defguard answers 201 {token}). */
export const GET = route({ access: "admin", enterprise: true }, async (ctx) => json(workerTokenAnswer(ctx.caller!.user.username), { status: 201 }));
