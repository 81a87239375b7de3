import "server-only";
import { json } from "./route";
import { sessionCookies, withCookies } from "./session-cookies";

/**
 * 200 {user, url} with the new session's cookies: the answer to every completed sign-in step.
 * The route passes the user loader (lib/users), so the wrapper layer knows no domain service.
 */
export async function signedInResponse(
  r: { token: string; userId: number },
  loadUser: (userId: number) => Promise<unknown>,
): Promise<Response> {
  return withCookies(json({ user: await loadUser(r.userId), url: null }), sessionCookies(r.token));
}
