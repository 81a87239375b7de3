import { actorOf, json, route } from "@/lib/http/route";
import { startUserEnrollmentSchema } from "@/lib/enrollment/schema";
import { startDesktopActivation } from "@/lib/enrollment/service";

/** A desktop-client activation token for an enrolled user (admin, or the user): 201 {enrollment_token, enrollment_url}. */
export const POST = route({ access: "self-or-admin", self: "username", body: startUserEnrollmentSchema }, async (ctx) =>
  json(await startDesktopActivation(actorOf(ctx), ctx.params.username, ctx.body, { isAdmin: ctx.caller!.isAdmin }), { status: 201 }),
);
