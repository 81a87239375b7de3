import { actorOf, json, route } from "@/lib/http/route";
import { startUserEnrollmentSchema } from "@/lib/enrollment/schema";
import { startUserEnrollment } from "@/lib/enrollment/service";

/** An enrolment token for a user without a password, e-mailed when asked: 201 {enrollment_token, enrollment_url}. */
export const POST = route({ access: "admin", body: startUserEnrollmentSchema }, async (ctx) =>
  json(await startUserEnrollment(actorOf(ctx), ctx.params.username, ctx.body), { status: 201 }),
);
