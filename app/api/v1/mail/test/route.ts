import { actorOf, json, route } from "@/lib/http/route";
import { testMailSchema } from "@/lib/mail/schema";
import { sendTestMail } from "@/lib/mail/service";

export const POST = route({ access: "admin", body: testMailSchema }, async (ctx) => {
  await sendTestMail(actorOf(ctx), ctx.body.to);
  return json(null);
});
