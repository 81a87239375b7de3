import { actorOf, json, route } from "@/lib/http/route";
import { updateUserSchema } from "@/lib/users/schema";
import { deleteUser, getUserDetails, updateUser } from "@/lib/users/service";

export const GET = route({ access: "self-or-admin", self: "username" }, async ({ params }) => getUserDetails(params.username));

export const PUT = route({ access: "self-or-admin", self: "username", body: updateUserSchema }, async (ctx) =>
  updateUser(actorOf(ctx), ctx.caller!.isAdmin, ctx.params.username, ctx.body, ctx.caller!.session),
);

export const DELETE = route({ access: "admin" }, async (ctx) => {
  await deleteUser(actorOf(ctx), ctx.params.username);
  return json(null);
});
