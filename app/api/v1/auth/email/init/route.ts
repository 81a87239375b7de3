import { actorOf, json, route } from "@/lib/http/route";
import { emailInit } from "@/lib/mfa/service";

/** E-mail a setup code to the signed-in user's address. */
export const POST = route({ access: "user", allowWithoutMfa: true }, async (ctx) => {
  await emailInit(actorOf(ctx), ctx.caller!.user.id);
  return json(null);
});
