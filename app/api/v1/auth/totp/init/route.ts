import { actorOf, route } from "@/lib/http/route";
import { totpInit } from "@/lib/mfa/service";

/** A new TOTP secret (and otpauth:// URI for the QR code), pending until confirmed with a code. */
export const POST = route({ access: "user", allowWithoutMfa: true }, async (ctx) => totpInit(actorOf(ctx), ctx.caller!.user.id, ctx.caller!.session));
