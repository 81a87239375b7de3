import { actorOf, json, route } from "@/lib/http/route";
import { startPasswordReset } from "@/lib/users/service";

export const POST = route({ access: "admin" }, async (ctx) => {
  await startPasswordReset(actorOf(ctx), ctx.params.username);
  return json(null);
});
