import { route } from "@/lib/http/route";
import { codeSchema } from "@/lib/mfa/schema";
import { verifyTotpLogin } from "@/lib/mfa/service";
import { signedInResponse } from "@/lib/http/signed-in";
import { getUserInfo } from "@/lib/users/service";

export const POST = route({ access: "session", body: codeSchema }, async (ctx) =>
  signedInResponse(await verifyTotpLogin(ctx.caller!.session, ctx, ctx.body.code), getUserInfo),
);
