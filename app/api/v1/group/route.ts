import { actorOf, json, route } from "@/lib/http/route";
import { groupSchema } from "@/lib/groups/schema";
import { createGroup, listGroupNames } from "@/lib/groups/service";

export const GET = route({ access: "admin" }, async () => ({ groups: await listGroupNames() }));

export const POST = route({ access: "admin", body: groupSchema }, async (ctx) =>
  json(await createGroup(actorOf(ctx), ctx.body), { status: 201 }),
);
