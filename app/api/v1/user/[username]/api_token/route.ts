import { actorOf, json, route } from "@/lib/http/route";
import { apiTokenCreateSchema } from "@/lib/apitokens/schema";
import { createApiToken, listApiTokens } from "@/lib/apitokens/service";

/** An admin's API tokens: [{id, name, created_at}] (never the tokens themselves). */
export const GET = route({ access: "admin" }, async ({ params }) => listApiTokens(params.username));

/** A new token for an admin: 201 {token}, shown this once. */
export const POST = route({ access: "admin", body: apiTokenCreateSchema }, async (ctx) =>
  json(await createApiToken(actorOf(ctx), ctx.params.username, ctx.body.name), { status: 201 }),
);
