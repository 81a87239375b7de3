/**
 * The modules of Settings → Global. Which module a route belongs to is decided by its path under
 * /api/v1, so a route cannot be forgotten: everything under a module's prefixes answers 403
 * {msg, code: "module_disabled"} while the module is switched off (lib/http/route.ts), and the
 * console hides the module's navigation entries and screens. Outside the REST routes the same
 * switches gate the OpenID provider's endpoints (lib/oidc/http.ts) and the gRPC services of
 * gateways and workers (lib/grpc/server.ts), with the same messages. Browser-safe (no imports).
 */
export type ModuleName = "wireguard" | "openid" | "webhooks" | "worker";

export const MODULE_PREFIXES: Record<ModuleName, readonly string[]> = {
  // Locations, gateways, statistics, user and network devices, firewall rules.
  wireguard: ["/network", "/device", "/acl"],
  // The OpenID apps this console signs users in to.
  openid: ["/oauth"],
  webhooks: ["/webhook"],
  // YubiKey provisioning workers and jobs.
  worker: ["/worker"],
};

export const MODULE_DISABLED_MSG: Record<ModuleName, string> = {
  wireguard: "the WireGuard VPN module is turned off in Settings → Global",
  openid: "the OpenID apps module is turned off in Settings → Global",
  webhooks: "the webhooks module is turned off in Settings → Global",
  worker: "the YubiKey provisioning module is turned off in Settings → Global",
};

/** The module of a path (with or without the /api/v1 prefix), or null. */
export function moduleOfPath(pathname: string): ModuleName | null {
  const path = pathname.startsWith("/api/v1/") ? pathname.slice("/api/v1".length) : pathname;
  for (const [mod, prefixes] of Object.entries(MODULE_PREFIXES) as [ModuleName, readonly string[]][]) {
    if (prefixes.some((p) => path === p || path.startsWith(`${p}/`))) return mod;
  }
  return null;
}
