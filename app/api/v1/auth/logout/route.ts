import { json, route } from "@/lib/http/route";
import { deleteSessionByToken } from "@/lib/auth/session";
import { clearedSessionCookies, withCookies } from "@/lib/http/session-cookies";

export const POST = route({ access: "session" }, async ({ caller }) => {
  await deleteSessionByToken(caller!.sessionToken);
  return withCookies(json(null), clearedSessionCookies());
});
