import { actorOf, route } from "@/lib/http/route";
import { sendSupportMail } from "@/lib/support/service";

/** E-mail the support bundle to the support address set on the Support page: {to}. */
export const POST = route({ access: "admin" }, async (ctx) => sendSupportMail(actorOf(ctx)));
