import { actorOf, json, route } from "@/lib/http/route";
import { createUserSchema, listUsersQuerySchema } from "@/lib/users/schema";
import { createUser, listUsers, listUsersJson } from "@/lib/users/service";

/** Full array without ?page (built as JSON by PostgreSQL); {data, pagination} with ?page. */
export const GET = route({ access: "admin", query: listUsersQuerySchema }, async ({ query }) => {
  if (query.page !== undefined) return listUsers(query);
  const body = await listUsersJson(query);
  // A view of the (possibly cached) buffer, not a copy.
  return new Response(new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength), {
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
});

export const POST = route({ access: "admin", body: createUserSchema }, async (ctx) =>
  json(await createUser(actorOf(ctx), ctx.body), { status: 201 }),
);
