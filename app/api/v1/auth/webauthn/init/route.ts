import { route } from "@/lib/http/route";
import { webauthnRegisterInit } from "@/lib/mfa/service";

/** Registration options for a new security key. */
export const POST = route({ access: "user", allowWithoutMfa: true }, async (ctx) => webauthnRegisterInit(ctx.caller!.session));
