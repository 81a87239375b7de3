import { route } from "@/lib/http/route";
import { webauthnAssertionSchema } from "@/lib/mfa/schema";
import { verifyWebauthnLogin } from "@/lib/mfa/service";
import { signedInResponse } from "@/lib/http/signed-in";
import { getUserInfo } from "@/lib/users/service";

export const POST = route({ access: "session", body: webauthnAssertionSchema }, async (ctx) =>
  signedInResponse(await verifyWebauthnLogin(ctx.caller!.session, ctx, ctx.body), getUserInfo),
);
