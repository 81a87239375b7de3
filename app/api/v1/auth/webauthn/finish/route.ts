import { actorOf, route } from "@/lib/http/route";
import { webauthnFinishSchema } from "@/lib/mfa/schema";
import { webauthnRegisterFinish } from "@/lib/mfa/service";

/** {name, ...credential}: verify and store the new key; answers {codes}. */
export const POST = route({ access: "user", allowWithoutMfa: true, body: webauthnFinishSchema }, async (ctx) => {
  const { name, ...credential } = ctx.body;
  return webauthnRegisterFinish(actorOf(ctx), ctx.caller!.session, name, credential);
});
