import { actorOf, json, route } from "@/lib/http/route";
import { webhookSchema, webhookStateSchema } from "@/lib/webhooks/schema";
import { deleteWebhook, getWebhook, setWebhookEnabled, updateWebhook } from "@/lib/webhooks/service";

export const GET = route({ access: "admin" }, async ({ params }) => getWebhook(params.id));

export const PUT = route({ access: "admin", body: webhookSchema }, async (ctx) => updateWebhook(actorOf(ctx), ctx.params.id, ctx.body));

/** POST /webhook/{id} {enabled}: enable or disable. */
export const POST = route({ access: "admin", body: webhookStateSchema }, async (ctx) => {
  await setWebhookEnabled(actorOf(ctx), ctx.params.id, ctx.body.enabled);
  return json({});
});

export const DELETE = route({ access: "admin" }, async (ctx) => {
  await deleteWebhook(actorOf(ctx), ctx.params.id);
  return json({});
});
