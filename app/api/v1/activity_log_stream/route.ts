import { actorOf, json, route } from "@/lib/http/route";
import { logStreamSchema } from "@/lib/webhooks/schema";
import { createLogStream, listLogStreams } from "@/lib/webhooks/streams";

export const GET = route({ access: "admin" }, async () => listLogStreams());

export const POST = route({ access: "admin", enterprise: true, body: logStreamSchema }, async (ctx) => {
  await createLogStream(actorOf(ctx), ctx.body);
  return json({}, { status: 201 });
});
