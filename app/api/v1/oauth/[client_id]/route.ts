import { actorOf, json, route } from "@/lib/http/route";
import { openidClientSchema, openidClientStateSchema } from "@/lib/oidc/schema";
import { deleteClient, getClient, setClientEnabled, updateClient } from "@/lib/oidc/clients";

export const GET = route({ access: "admin" }, async ({ params }) => getClient(params.client_id));

export const PUT = route({ access: "admin", body: openidClientSchema }, async (ctx) =>
  updateClient(actorOf(ctx), ctx.params.client_id, ctx.body),
);

/** POST /oauth/{client_id} {enabled}: enable or disable the app. */
export const POST = route({ access: "admin", body: openidClientStateSchema }, async (ctx) => {
  await setClientEnabled(actorOf(ctx), ctx.params.client_id, ctx.body.enabled);
  return json(null);
});

export const DELETE = route({ access: "admin" }, async (ctx) => {
  await deleteClient(actorOf(ctx), ctx.params.client_id);
  return json(null);
});
