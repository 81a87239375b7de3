import { actorOf, json, route } from "@/lib/http/route";
import { logStreamSchema } from "@/lib/webhooks/schema";
import { deleteLogStream, getLogStream, updateLogStream } from "@/lib/webhooks/streams";

export const GET = route({ access: "admin" }, async ({ params }) => getLogStream(params.id));

export const PUT = route({ access: "admin", enterprise: true, body: logStreamSchema }, async (ctx) => {
  await updateLogStream(actorOf(ctx), ctx.params.id, ctx.body);
  return json({});
});

export const DELETE = route({ access: "admin" }, async (ctx) => {
  await deleteLogStream(actorOf(ctx), ctx.params.id);
  return json({});
});
