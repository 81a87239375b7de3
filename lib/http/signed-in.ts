import { getUserInfo } from "../users/service";
import { json } from "./route";
import { sessionCookies, withCookies } from "./session-cookies";

/** 200 {user, url} with the new session's cookies: the answer to every completed sign-in step. */
export async function signedInResponse(r: { token: string; userId: number }): Promise<Response> {
  return withCookies(json({ user: await getUserInfo(r.userId), url: null }), sessionCookies(r.token));
}
