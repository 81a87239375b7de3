import { actorOf, json, route } from "@/lib/http/route";
import { setPasswordSchema } from "@/lib/users/schema";
import { setUserPassword } from "@/lib/users/service";

export const PUT = route({ access: "admin", body: setPasswordSchema }, async (ctx) => {
  await setUserPassword(actorOf(ctx), ctx.params.username, ctx.body.new_password);
  return json(null);
});
