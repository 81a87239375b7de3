/**
 * The canonical texts whose SHA-256 digests describe a gateway's state (docs/gateway-protocol.md,
 * "Drift"), built the same way by the console (from the expected state) and by the gateway agent
 * (from the live interface). Pure and browser-safe (imports only ./ip), so the agent can use it;
 * each side hashes with node:crypto itself.
 */
import { canonicalRoute } from "./ip";

export interface PeerAllowedIps {
  pubkey: string;
  allowed_ips: string[];
}

/** One line per peer, sorted: `<pubkey> <allowed IPs in canonical route form, sorted, comma-separated>`. */
export function peerLines(peers: PeerAllowedIps[]): string[] {
  return peers.map((p) => `${p.pubkey} ${[...new Set(p.allowed_ips.map(canonicalRoute))].sort().join(",")}`).sort();
}

/** The text whose digest is `peers_digest`. */
export function peersText(peers: PeerAllowedIps[]): string {
  return peerLines(peers).join("\n");
}

/** JSON with object keys sorted (arrays keep their order: firewall rules are ordered). */
export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(",")}]`;
  if (v && typeof v === "object") {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v ?? null);
}

/**
 * The text whose digest is `firewall_digest`: "off" without a firewall, else the canonical config
 * (the config after a protobuf round trip with the protocol's loader options, so absent and
 * default fields compare equal) as stable JSON.
 */
export function firewallText(canonical: unknown | null): string {
  return canonical ? stableJson(canonical) : "off";
}

/** The text an agent digests when its live table differs from what it applied. */
export function tamperedFirewallText(listing: string): string {
  return `live:${listing}`;
}

export interface StateDifference {
  /** Expected peers missing on the gateway (at most 20 listed). */
  missing: string[];
  /** Peers on the gateway that should not be there (at most 20 listed). */
  unexpected: string[];
  /** Peers whose allowed IPs differ (at most 20 listed). */
  allowed_ips: { pubkey: string; expected: string; actual: string }[];
  missing_count: number;
  unexpected_count: number;
  allowed_ips_count: number;
  firewall: boolean;
}

const LIST_LIMIT = 20;

/** What differs between the expected and the reported peers (and whether the firewall does). */
export function stateDifference(expected: PeerAllowedIps[], actual: PeerAllowedIps[], firewallDiffers: boolean): StateDifference {
  const line = (p: PeerAllowedIps) => [...new Set(p.allowed_ips.map(canonicalRoute))].sort().join(",");
  const want = new Map(expected.map((p) => [p.pubkey, line(p)]));
  const have = new Map(actual.map((p) => [p.pubkey, line(p)]));
  const missing = [...want.keys()].filter((k) => !have.has(k)).sort();
  const unexpected = [...have.keys()].filter((k) => !want.has(k)).sort();
  const ips = [...want.entries()]
    .filter(([k, v]) => have.has(k) && have.get(k) !== v)
    .map(([k, v]) => ({ pubkey: k, expected: v, actual: have.get(k)! }))
    .sort((a, b) => a.pubkey.localeCompare(b.pubkey));
  return {
    missing: missing.slice(0, LIST_LIMIT),
    unexpected: unexpected.slice(0, LIST_LIMIT),
    allowed_ips: ips.slice(0, LIST_LIMIT),
    missing_count: missing.length,
    unexpected_count: unexpected.length,
    allowed_ips_count: ips.length,
    firewall: firewallDiffers,
  };
}
