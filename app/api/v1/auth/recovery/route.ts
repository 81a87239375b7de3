import { route } from "@/lib/http/route";
import { recoveryCodeSchema } from "@/lib/mfa/schema";
import { verifyRecoveryLogin } from "@/lib/mfa/service";
import { signedInResponse } from "@/lib/http/signed-in";
import { getUserInfo } from "@/lib/users/service";

export const POST = route({ access: "session", body: recoveryCodeSchema }, async (ctx) =>
  signedInResponse(await verifyRecoveryLogin(ctx.caller!.session, ctx, ctx.body.code), getUserInfo),
);
