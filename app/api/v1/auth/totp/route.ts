import { actorOf, json, route } from "@/lib/http/route";
import { codeSchema } from "@/lib/mfa/schema";
import { totpDisable, totpEnable } from "@/lib/mfa/service";

/** Confirm TOTP with a first code: {codes} (recovery codes the first time MFA is turned on, else null). */
export const POST = route({ access: "user", allowWithoutMfa: true, body: codeSchema }, async (ctx) =>
  totpEnable(actorOf(ctx), ctx.caller!.user.id, ctx.body.code, ctx.caller!.session),
);

export const DELETE = route({ access: "user", fresh: true }, async (ctx) => {
  await totpDisable(actorOf(ctx), ctx.caller!.user.id);
  return json(null);
});
