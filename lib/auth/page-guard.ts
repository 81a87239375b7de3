import "server-only";
/**
 * Server-side gate for pages (server components only). The API routes have lib/http; pages
 * use this to refuse rendering admin screens to anyone but a signed-in admin.
 */
import { cache } from "react";
import { cookies } from "next/headers";
import { findSession, SESSION_COOKIE, type Session } from "./session";

/** The caller's session when it is valid and its account active; null otherwise. Cached per request. */
export const getPageSession = cache(async (): Promise<Session | null> => {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!token) return null;
  const session = await findSession(token);
  return session && session.user.isActive ? session : null;
});

/** A session that has passed every required factor (MFA included). */
export function isSignedIn(session: Session | null): session is Session {
  return session?.state === "authenticated";
}

/**
 * For admin pages themselves. A layout does not stop its pages from rendering into the RSC
 * payload, so besides app/(console)/(admin)/layout.tsx (which shows the refusal) every admin
 * page renders nothing unless this returns a session.
 */
export async function adminSession(): Promise<Session | null> {
  const session = await getPageSession();
  return isSignedIn(session) && session.user.isAdmin ? session : null;
}

/** Where a signed-in user lands after sign-in (docs/api.md): admins on the overview, others on their profile. */
export function homePath(session: Session): string {
  if (!session.user.isAdmin) return "/me";
  // The overview is part of the WireGuard module; with it switched off admins start on the users list.
  return session.policy.disabledModules.includes("wireguard") ? "/users" : "/overview";
}

/**
 * The `?r=` return path of the login page, accepted only when it is a same-origin path
 * ("/users?x=1"); absolute URLs, protocol-relative ("//host", "/\\host") and odd input yield null.
 */
export function safeReturnPath(r: unknown): string | null {
  if (typeof r !== "string" || !r.startsWith("/") || r.length > 2048) return null;
  if (r.startsWith("//") || r.includes("\\") || /[\u0000-\u001f\u007f]/.test(r)) return null;
  const base = "http://return.invalid";
  let url: URL;
  try {
    url = new URL(r, base);
  } catch {
    return null;
  }
  if (url.origin !== base) return null;
  const path = `${url.pathname}${url.search}${url.hash}`;
  return path === "/login" || path.startsWith("/login?") ? null : path;
}
