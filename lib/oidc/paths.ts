/**
 * The paths of the OpenID Connect provider, apart from the provider itself: server.ts decides
 * with `mayBeOidcPath` whether a request needs the provider's module at all, without loading it
 * (and what it imports) at start-up.
 */
export const OIDC_PATHS = {
  authorization: "/api/v1/oauth/authorize",
  token: "/api/v1/oauth/token",
  userinfo: "/api/v1/oauth/userinfo",
  jwks: "/api/v1/oauth/discovery/keys",
  revocation: "/api/v1/oauth/revoke",
  end_session: "/api/v1/oauth/logout",
} as const;
export const INTERACTION_PREFIX = "/api/v1/oauth/interaction/";
export const DISCOVERY_PATH = "/.well-known/openid-configuration";
/** Every path above starts with this prefix or is DISCOVERY_PATH. */
const OAUTH_PREFIX = "/api/v1/oauth/";

/** Requests the provider serves itself (the interaction and consent paths are ours, see http.ts). */
export function isProviderPath(pathname: string): boolean {
  if (pathname === DISCOVERY_PATH) return true;
  return Object.values(OIDC_PATHS).some((p) => pathname === p || pathname.startsWith(`${p}/`));
}

/**
 * Whether `handleOidc` (http.ts) may serve this request target; false for every target it
 * leaves to Next.js untouched. The target is read as handleOidc reads it.
 */
export function mayBeOidcPath(target: string): boolean {
  let path: string;
  try {
    path = new URL(target, "http://x").pathname;
  } catch {
    return true;
  }
  return path === DISCOVERY_PATH || path.startsWith(OAUTH_PREFIX);
}
