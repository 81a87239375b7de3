import { route } from "@/lib/http/route";
import { webauthnLoginStart } from "@/lib/mfa/service";

/** During sign-in: authentication options for the user's security keys. */
export const POST = route({ access: "session" }, async (ctx) => webauthnLoginStart(ctx.caller!.session));
