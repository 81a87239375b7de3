import { actorOf, json, route } from "@/lib/http/route";
import { logout } from "@/lib/auth/service";
import { clearedSessionCookies, withCookies } from "@/lib/http/session-cookies";

export const POST = route({ access: "session" }, async (ctx) => {
  const a = actorOf(ctx);
  await logout(ctx.caller!.sessionToken, { userId: a.userId!, username: a.username, ip: a.ip });
  return withCookies(json(null), clearedSessionCookies());
});
