import { actorOf, json, route } from "@/lib/http/route";
import { changeOwnPasswordSchema } from "@/lib/users/schema";
import { changeOwnPassword } from "@/lib/users/service";

export const PUT = route({ access: "user", body: changeOwnPasswordSchema }, async (ctx) => {
  await changeOwnPassword(actorOf(ctx), ctx.caller!.user.id, ctx.caller!.session.id, ctx.body.old_password, ctx.body.new_password);
  return json(null);
});
