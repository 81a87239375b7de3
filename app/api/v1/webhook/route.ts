import { actorOf, json, route } from "@/lib/http/route";
import { webhookSchema } from "@/lib/webhooks/schema";
import { createWebhook, listWebhooks } from "@/lib/webhooks/service";

export const GET = route({ access: "admin" }, async () => listWebhooks());

/** POST /webhook: 201 with the new webhook (defguard answers 201 `{}`; clients read only the status). */
export const POST = route({ access: "admin", body: webhookSchema }, async (ctx) => json(await createWebhook(actorOf(ctx), ctx.body), { status: 201 }));
