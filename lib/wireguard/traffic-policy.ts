/**
 * The enterprise client traffic policy applied to the AllowedIPs of generated client configs.
 * Pure, no I/O (also used where the settings are already read).
 *
 * - "none": the location's allowed IPs (all traffic when the location sets none);
 * - "force_all_traffic": every client routes all its traffic through the VPN (0.0.0.0/0, ::/0),
 *   whatever the location says (what defguard does for older clients too);
 * - "disable_all_traffic": clients may not route all traffic: default routes (prefix 0) are left
 *   out of the location's allowed IPs; when nothing else is left, the location's own networks.
 */
import { networkCidrText, parseCidr, parseCidrOrIp } from "../net/ip";

export const CLIENT_TRAFFIC_POLICIES = ["none", "disable_all_traffic", "force_all_traffic"] as const;
export type ClientTrafficPolicy = (typeof CLIENT_TRAFFIC_POLICIES)[number];

export const ALL_TRAFFIC = ["0.0.0.0/0", "::/0"] as const;

export function clientAllowedIps(locationAllowedIps: readonly string[], locationAddresses: readonly string[], policy: ClientTrafficPolicy): string[] {
  if (policy === "force_all_traffic") return [...ALL_TRAFFIC];
  const base = locationAllowedIps.length ? [...locationAllowedIps] : [...ALL_TRAFFIC];
  if (policy !== "disable_all_traffic") return base;
  const narrowed = base.filter((r) => parseCidrOrIp(r.trim())?.prefix !== 0);
  if (narrowed.length) return narrowed;
  const own = locationAddresses.map((a) => parseCidr(a)).filter((c) => c !== null);
  return [...new Set(own.map(networkCidrText))];
}
