import { actorOf, json, route } from "@/lib/http/route";
import { enableMfaSchema } from "@/lib/mfa/schema";
import { disableMfa, enableMfa } from "@/lib/mfa/service";

/** Switch MFA on with the chosen default method: {codes}. */
export const PUT = route({ access: "user", allowWithoutMfa: true, body: enableMfaSchema }, async (ctx) =>
  enableMfa(actorOf(ctx), ctx.caller!.user.id, ctx.body.method ?? ctx.body.mfa_method),
);

/** Switch MFA off: secrets, recovery codes and security keys are wiped. */
export const DELETE = route({ access: "user", fresh: true }, async (ctx) => {
  await disableMfa(actorOf(ctx), ctx.caller!.user.id);
  return json(null);
});
