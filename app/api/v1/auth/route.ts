import { json, route } from "@/lib/http/route";
import { loginSchema } from "@/lib/auth/schema";
import { signIn } from "@/lib/ldap/signin";
import { getUserInfo } from "@/lib/users/service";
import { sessionCookies, withCookies } from "@/lib/http/session-cookies";

export const POST = route({ access: "public", body: loginSchema, skipXsrf: true }, async ({ body, ip, userAgent }) => {
  const result = await signIn(body, { ip, userAgent });
  if (result.kind === "mfa_required") {
    return withCookies(json(result.mfa, { status: 201 }), sessionCookies(result.token));
  }
  const user = await getUserInfo(result.userId);
  const answer = result.mfaSetupRequired ? { user, url: null, mfa_setup_required: true } : { user, url: null };
  return withCookies(json(answer), sessionCookies(result.token));
});
