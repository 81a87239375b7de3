import { actorOf, json, route } from "@/lib/http/route";
import { createUserSchema, listUsersQuerySchema } from "@/lib/users/schema";
import { createUser, listUsers } from "@/lib/users/service";

export const GET = route({ access: "admin", query: listUsersQuerySchema }, async ({ query }) => listUsers(query));

export const POST = route({ access: "admin", body: createUserSchema }, async (ctx) =>
  json(await createUser(actorOf(ctx), ctx.body), { status: 201 }),
);
