import { actorOf, json, route } from "@/lib/http/route";
import { workerJobSchema } from "@/lib/provisioning/schema";
import { createJob } from "@/lib/provisioning/service";

export const POST = route({ access: "user", enterprise: true, body: workerJobSchema }, async (ctx) =>
  json(await createJob(actorOf(ctx), { username: ctx.caller!.user.username, isAdmin: ctx.caller!.isAdmin }, ctx.body), { status: 201 }),
);
