import { actorOf, json, route } from "@/lib/http/route";
import { welcomeTestSchema } from "@/lib/enrollment/schema";
import { sendWelcomeTest } from "@/lib/enrollment/service";

/** The enrolment settings page's test send of the drafted welcome e-mail. */
export const POST = route({ access: "admin", body: welcomeTestSchema }, async (ctx) => {
  await sendWelcomeTest(actorOf(ctx), ctx.body);
  return json(null);
});
