import { actorOf, json, jsonBytes, route } from "@/lib/http/route";
import { createUserSchema, listUsersQuerySchema } from "@/lib/users/schema";
import { createUser, listUsers, listUsersJson } from "@/lib/users/service";

/** Full array without ?page (built as JSON by PostgreSQL); {data, pagination} with ?page. */
export const GET = route({ access: "admin", query: listUsersQuerySchema }, async ({ query }) => {
  if (query.page !== undefined) return listUsers(query);
  return jsonBytes(await listUsersJson(query));
});

export const POST = route({ access: "admin", body: createUserSchema }, async (ctx) =>
  json(await createUser(actorOf(ctx), ctx.body), { status: 201 }),
);
