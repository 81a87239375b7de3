import { json, route } from "@/lib/http/route";
import { serializeCookie } from "@/lib/http/cookies";
import { authInfo, FLOW_COOKIE, FLOW_COOKIE_PATH, FLOW_TTL_SECONDS } from "@/lib/extid/login";

/** The "Sign in with …" button's target and label; the flow's state stays in a sealed cookie. */
export const GET = route({ access: "public" }, async () => {
  const { body, flow } = await authInfo();
  const res = json(body);
  res.headers.append("set-cookie", serializeCookie(FLOW_COOKIE, flow, { httpOnly: true, sameSite: "Lax", maxAge: FLOW_TTL_SECONDS, path: FLOW_COOKIE_PATH }));
  return res;
});
