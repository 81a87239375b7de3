import { actorOf, json, route } from "@/lib/http/route";
import { deviceSchema } from "@/lib/devices/schema";
import { createUserDevice, deleteDevice, getDevice, updateDevice } from "@/lib/devices/service";
import { parseId } from "@/lib/validation";

// One dynamic segment serves two API paths: POST /device/{username} and GET/PUT/DELETE /device/{id}.

const who = (c: { caller: { user: { id: number }; isAdmin: boolean } | null }) => ({ userId: c.caller!.user.id, isAdmin: c.caller!.isAdmin });

/** POST /device/{username}: add a device for a user → 201 {device, configs}. */
export const POST = route({ access: "self-or-admin", self: "id", body: deviceSchema }, async (ctx) =>
  json(await createUserDevice(actorOf(ctx), ctx.params.id, ctx.body, who(ctx)), { status: 201 }),
);

export const GET = route({ access: "user" }, async (ctx) => getDevice(parseId(ctx.params.id), who(ctx)));

export const PUT = route({ access: "user", body: deviceSchema }, async (ctx) =>
  updateDevice(actorOf(ctx), parseId(ctx.params.id), who(ctx), ctx.body),
);

export const DELETE = route({ access: "user" }, async (ctx) => {
  await deleteDevice(actorOf(ctx), parseId(ctx.params.id), who(ctx));
  return json(null);
});
