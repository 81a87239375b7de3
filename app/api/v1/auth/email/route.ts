import { actorOf, json, route } from "@/lib/http/route";
import { codeSchema } from "@/lib/mfa/schema";
import { emailDisable, emailEnable, sendEmailLoginCode } from "@/lib/mfa/service";

/** During sign-in: e-mail a login code. */
export const GET = route({ access: "session" }, async (ctx) => {
  await sendEmailLoginCode(ctx.caller!.session);
  return json(null);
});

/** Confirm e-mail codes with the setup code: {codes}. */
export const POST = route({ access: "user", allowWithoutMfa: true, body: codeSchema }, async (ctx) =>
  emailEnable(actorOf(ctx), ctx.caller!.user.id, ctx.body.code),
);

export const DELETE = route({ access: "user", fresh: true }, async (ctx) => {
  await emailDisable(actorOf(ctx), ctx.caller!.user.id);
  return json(null);
});
