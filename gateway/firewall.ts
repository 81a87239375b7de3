/**
 * enterprise.firewall.FirewallConfig → one nftables script, applied atomically with
 * `nft -f -` (docs/gateway-protocol.md, "How a gateway applies it"). Pure: no I/O.
 *
 * One `inet` table per interface (`defguard_<ifname>`), replaced as a whole in one
 * transaction ("table X; delete table X; table X {...}"), so traffic never sees a half-built
 * rule set:
 *   - chain forward (filter hook, policy = default_policy):
 *       iifname != "<if>" accept             traffic not entering from the VPN
 *       ct state established,related accept
 *       the rules in the order received      one nft rule per protocol; ports without
 *                                            protocols = TCP and UDP; ICMP ignores ports
 *   - chain postrouting (nat hook): one `snat` per SNAT binding.
 * Addresses and ports are merged here (nft never sees conflicting intervals); a list of one
 * interval is written inline, longer lists go into named interval sets shared by every rule
 * that uses the same list. A rule whose address list names only the
 * other IP family (or nothing valid) matches nothing and is left out, never widened to "any".
 */
import { formatIp, lastAddress, networkAddress, parseCidrOrIp, parseIp, type IpVersion as Family } from "../lib/net/ip";

// Wire shapes as proto-loader gives them (enums as strings; numbers accepted too).
export interface WireIpAddress {
  address?: "ip" | "ip_range" | "ip_subnet";
  ip?: string;
  ip_range?: { start?: string; end?: string } | null;
  ip_subnet?: string;
}
export interface WirePort {
  port?: "single_port" | "port_range";
  single_port?: number;
  port_range?: { start?: number; end?: number } | null;
}
export interface WireFirewallRule {
  id?: number | string;
  source_addrs?: WireIpAddress[] | null;
  destination_addrs?: WireIpAddress[] | null;
  destination_ports?: WirePort[] | null;
  protocols?: (string | number)[] | null;
  verdict?: string | number;
  comment?: string | null;
  ip_version?: string | number;
}
export interface WireSnatBinding {
  id?: number | string;
  source_addrs?: WireIpAddress[] | null;
  public_ip?: string;
  comment?: string | null;
}
export interface WireFirewallConfig {
  default_policy?: string | number;
  rules?: WireFirewallRule[] | null;
  snat_bindings?: WireSnatBinding[] | null;
}

export const NFT_FAMILY = "inet";

/** nft identifier for the interface's table. */
export function firewallTableName(ifname: string): string {
  return `defguard_${ifname.replace(/[^A-Za-z0-9_]/g, "_")}`;
}

const isDeny = (v: string | number | undefined) => v === "DENY" || v === 1;
const verdictOf = (v: string | number | undefined) => (isDeny(v) ? "drop" : "accept");
const familyOf = (v: string | number | undefined): Family => (v === "IPV6" || v === 1 ? 6 : 4);

type Proto = "tcp" | "udp" | "icmp";
function protocolOf(p: string | number): Proto | null {
  if (p === "TCP" || p === 6) return "tcp";
  if (p === "UDP" || p === 17) return "udp";
  if (p === "ICMP" || p === 1) return "icmp";
  return null;
}

interface Interval {
  start: bigint;
  end: bigint;
}

/** Sorted, merged (overlapping or adjacent) intervals. */
export function mergeIntervals(list: Interval[]): Interval[] {
  const s = [...list].sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const out: Interval[] = [];
  for (const i of s) {
    const last = out[out.length - 1];
    if (last && i.start <= last.end + 1n) {
      if (i.end > last.end) last.end = i.end;
    } else out.push({ ...i });
  }
  return out;
}

/** One address entry → an interval of the given family, or null (other family / invalid). */
export function addressInterval(a: WireIpAddress, family: Family): Interval | null {
  const kind = a.address ?? (a.ip ? "ip" : a.ip_subnet ? "ip_subnet" : a.ip_range ? "ip_range" : undefined);
  if (kind === "ip" && a.ip) {
    const ip = parseIp(a.ip.trim());
    return ip && ip.version === family ? { start: ip.value, end: ip.value } : null;
  }
  if (kind === "ip_subnet" && a.ip_subnet) {
    const c = parseCidrOrIp(a.ip_subnet.trim());
    return c && c.version === family ? { start: networkAddress(c), end: lastAddress(c) } : null;
  }
  if (kind === "ip_range" && a.ip_range?.start && a.ip_range?.end) {
    const s = parseIp(a.ip_range.start.trim());
    const e = parseIp(a.ip_range.end.trim());
    if (!s || !e || s.version !== family || e.version !== family) return null;
    return s.value <= e.value ? { start: s.value, end: e.value } : { start: e.value, end: s.value };
  }
  return null;
}

/** "a", "a/len" when the interval is exactly one network, else "a-b". */
function intervalText(i: Interval, family: Family): string {
  const a = formatIp(i.start, family);
  if (i.start === i.end) return a;
  const size = i.end - i.start + 1n;
  if ((size & (size - 1n)) === 0n && i.start % size === 0n) {
    const bits = size.toString(2).length - 1;
    return `${a}/${(family === 4 ? 32 : 128) - bits}`;
  }
  return `${a}-${formatIp(i.end, family)}`;
}

/** Port entries → merged "22" / "80-90" elements; invalid ones dropped. */
export function portElements(ports: WirePort[]): string[] {
  const list: Interval[] = [];
  for (const p of ports) {
    const kind = p.port ?? (p.port_range ? "port_range" : p.single_port !== undefined ? "single_port" : undefined);
    if (kind === "single_port" && p.single_port !== undefined) {
      const n = Number(p.single_port);
      if (Number.isInteger(n) && n >= 0 && n <= 65535) list.push({ start: BigInt(n), end: BigInt(n) });
    } else if (kind === "port_range" && p.port_range) {
      let s = Number(p.port_range.start);
      let e = Number(p.port_range.end);
      if (!Number.isInteger(s) || !Number.isInteger(e)) continue;
      if (s > e) [s, e] = [e, s];
      if (s < 0 || e > 65535) continue;
      list.push({ start: BigInt(s), end: BigInt(e) });
    }
  }
  return mergeIntervals(list).map((i) => (i.start === i.end ? String(i.start) : `${i.start}-${i.end}`));
}

/** A comment safe inside nft double quotes (nft allows 128 characters). */
export function nftComment(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f"\\]/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 128);
}

const quote = (s: string) => `"${s.replace(/["\\]/g, "")}"`;

interface SetDef {
  name: string;
  type: "ipv4_addr" | "ipv6_addr" | "inet_service";
  elements: string[];
}

/**
 * Named sets of one script, shared: a list that another rule already uses is referenced, not
 * declared again (an ACL rule's ALLOW and DENY halves name the same destinations; many rules
 * the same ports). Each set is a kernel object, and loading thousands of them is most of the
 * cost of `nft -f` (bench: acl), so a list of one interval is written inline instead.
 */
class SetPool {
  readonly sets: SetDef[] = [];
  private byContent = new Map<string, string>();

  /** `elements` as a rule operand: the element itself, or a reference to a named set. */
  operand(type: SetDef["type"], elements: string[], name: string): string {
    if (elements.length === 1) return elements[0];
    const key = `${type} ${elements.join(",")}`;
    const known = this.byContent.get(key);
    if (known) return `@${known}`;
    this.byContent.set(key, name);
    this.sets.push({ name, type, elements });
    return `@${name}`;
  }
}

/** null: the list was given but holds nothing of this family (the rule can never match). */
function addressSet(list: WireIpAddress[] | null | undefined, family: Family, name: string, pool: SetPool): string | null | undefined {
  if (!list || list.length === 0) return undefined; // any
  const merged = mergeIntervals(list.map((a) => addressInterval(a, family)).filter((i): i is Interval => i !== null));
  if (!merged.length) return null;
  return pool.operand(family === 4 ? "ipv4_addr" : "ipv6_addr", merged.map((i) => intervalText(i, family)), name);
}

export interface BuildResult {
  script: string;
  /** Rules left out and why (for the agent's log). */
  skipped: string[];
}

/** The whole table for one interface. */
export function buildFirewall(ifname: string, cfg: WireFirewallConfig): BuildResult {
  const table = firewallTableName(ifname);
  const iface = quote(ifname);
  const pool = new SetPool();
  const forward: string[] = [];
  const nat: string[] = [];
  const skipped: string[] = [];

  (cfg.rules ?? []).forEach((r, idx) => {
    const n = idx + 1;
    const family = familyOf(r.ip_version);
    const ipKw = family === 4 ? "ip" : "ip6";
    const label = `rule ${r.id ?? n}${r.comment ? ` (${nftComment(r.comment)})` : ""}`;
    const src = addressSet(r.source_addrs, family, `r${n}_src`, pool);
    const dst = addressSet(r.destination_addrs, family, `r${n}_dst`, pool);
    if (src === null || dst === null) {
      skipped.push(`${label}: no ${family === 4 ? "IPv4" : "IPv6"} ${src === null ? "source" : "destination"} address`);
      return;
    }
    const ports = portElements(r.destination_ports ?? []);
    if ((r.destination_ports ?? []).length > 0 && ports.length === 0) {
      skipped.push(`${label}: no valid destination port`);
      return;
    }
    let protos = [...new Set((r.protocols ?? []).map(protocolOf).filter((p): p is Proto => p !== null))];
    if ((r.protocols ?? []).length > 0 && protos.length === 0) {
      skipped.push(`${label}: no known protocol`);
      return;
    }
    const base = [`meta nfproto ${family === 4 ? "ipv4" : "ipv6"}`];
    if (src) base.push(`${ipKw} saddr ${src}`);
    if (dst) base.push(`${ipKw} daddr ${dst}`);
    const verdict = verdictOf(r.verdict);
    const comment = r.comment ? ` comment ${quote(nftComment(r.comment))}` : "";
    const portSet = ports.length ? pool.operand("inet_service", ports, `r${n}_ports`) : "";
    if (protos.length === 0 && ports.length > 0) protos = ["tcp", "udp"];
    if (protos.length === 0) {
      forward.push(`${base.join(" ")} ${verdict}${comment}`);
      return;
    }
    for (const p of protos) {
      const parts = [...base];
      if (p === "icmp") parts.push(`meta l4proto ${family === 4 ? "icmp" : "ipv6-icmp"}`);
      else if (ports.length) parts.push(`${p} dport ${portSet}`);
      else parts.push(`meta l4proto ${p}`);
      forward.push(`${parts.join(" ")} ${verdict}${comment}`);
    }
  });

  (cfg.snat_bindings ?? []).forEach((b, idx) => {
    const n = idx + 1;
    const pub = b.public_ip ? parseIp(b.public_ip.trim()) : null;
    const label = `SNAT binding ${b.id ?? n}`;
    if (!pub) {
      skipped.push(`${label}: invalid public IP ${JSON.stringify(b.public_ip ?? "")}`);
      return;
    }
    const ipKw = pub.version === 4 ? "ip" : "ip6";
    const src = addressSet(b.source_addrs, pub.version, `s${n}_src`, pool);
    if (src === null) {
      skipped.push(`${label}: no source address of the public IP's family`);
      return;
    }
    const parts = [`meta nfproto ${pub.version === 4 ? "ipv4" : "ipv6"}`];
    parts.push(src ? `${ipKw} saddr ${src}` : `iifname ${iface}`);
    parts.push(`oifname != ${iface}`, `snat ${ipKw} to ${formatIp(pub.value, pub.version)}`);
    const comment = b.comment ? ` comment ${quote(nftComment(b.comment))}` : "";
    nat.push(`${parts.join(" ")}${comment}`);
  });

  const lines: string[] = [];
  // Create-if-missing then delete: the replacement is one atomic transaction either way.
  lines.push(`table ${NFT_FAMILY} ${table}`, `delete table ${NFT_FAMILY} ${table}`, `table ${NFT_FAMILY} ${table} {`);
  for (const s of pool.sets) {
    lines.push(`\tset ${s.name} {`, `\t\ttype ${s.type}`, `\t\tflags interval`);
    lines.push(`\t\telements = { ${s.elements.join(", ")} }`, `\t}`);
  }
  lines.push(`\tchain forward {`, `\t\ttype filter hook forward priority filter; policy ${isDeny(cfg.default_policy) ? "drop" : "accept"};`);
  lines.push(`\t\tiifname != ${iface} accept`, `\t\tct state established,related accept`);
  for (const r of forward) lines.push(`\t\t${r}`);
  lines.push(`\t}`);
  if (nat.length) {
    lines.push(`\tchain postrouting {`, `\t\ttype nat hook postrouting priority srcnat; policy accept;`);
    for (const r of nat) lines.push(`\t\t${r}`);
    lines.push(`\t}`);
  }
  lines.push(`}`);
  return { script: `${lines.join("\n")}\n`, skipped };
}
