import { json, route } from "@/lib/http/route";
import { reauthSchema } from "@/lib/auth/schema";
import { reauthenticate } from "@/lib/mfa/reauth";

/** Prove the password or a TOTP code again ("sudo mode" for changing sign-in security). */
export const POST = route({ access: "user", allowWithoutMfa: true, body: reauthSchema }, async (ctx) => {
  await reauthenticate(ctx.caller!.session, ctx, ctx.body);
  return json(null);
});
