import { actorOf, json, route } from "@/lib/http/route";
import { openidClientSchema } from "@/lib/oidc/schema";
import { createClient, listClients } from "@/lib/oidc/clients";

export const GET = route({ access: "admin" }, async () => listClients());

export const POST = route({ access: "admin", body: openidClientSchema }, async (ctx) =>
  json(await createClient(actorOf(ctx), ctx.body), { status: 201 }),
);
