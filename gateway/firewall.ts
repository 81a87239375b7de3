/**
 * enterprise.firewall.FirewallConfig → nftables scripts, applied atomically with `nft -f -`
 * (docs/gateway-protocol.md, "How a gateway applies it"). Pure: no I/O.
 *
 * One `inet` table per interface (`defguard_<ifname>`):
 *   - chain forward (filter hook, policy = default_policy):
 *       iifname != "<if>" accept             traffic not entering from the VPN
 *       ct state established,related accept
 *       the rules in the order received      one nft rule per protocol; ports without
 *                                            protocols = TCP and UDP; ICMP ignores ports
 *   - chain postrouting (nat hook): one `snat` per SNAT binding.
 * Addresses and ports are merged here (nft never sees conflicting intervals); a list of one
 * interval is written inline, longer lists go into named interval sets shared by every rule
 * that uses the same list. A set is named by a hash of its type and elements, so the same list
 * has the same name in every build. A rule whose address list names only the other IP family
 * (or nothing valid) matches nothing and is left out, never widened to "any".
 *
 * Two scripts, both one transaction (traffic never sees a half-built rule set):
 *   - fullScript: the table replaced as a whole ("table X; delete table X; table X {...}");
 *   - incrementalScript(previous, next, handles): against the table the previous model built,
 *     only the sets that are new are added, only the rules that differ are deleted (by handle)
 *     and added in place, the policy and the nat chain change if they differ, and the sets no
 *     rule uses any more are deleted.
 * firewallModel builds what both scripts are written from; with a cache it parses only the
 * rules whose content changed since the previous config.
 */
import { createHash } from "node:crypto";
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

export interface SetDef {
  name: string;
  type: "ipv4_addr" | "ipv6_addr" | "inet_service";
  elements: string[];
}

const SET_PREFIX: Record<SetDef["type"], string> = { ipv4_addr: "a4", ipv6_addr: "a6", inet_service: "p" };

/** The name of the set holding `elements` (merged, in order): its type and a hash of the content. */
export function nftSetName(type: SetDef["type"], elements: string[]): string {
  return `${SET_PREFIX[type]}_${createHash("sha256").update(`${type} ${elements.join(",")}`).digest("hex").slice(0, 20)}`;
}

/**
 * Named sets of one script, shared: a list that another rule already uses is referenced, not
 * declared again (an ACL rule's ALLOW and DENY halves name the same destinations; many rules
 * the same ports). Each set is a kernel object, and loading thousands of them is most of the
 * cost of `nft -f` (bench: acl), so a list of one interval is written inline instead. The name
 * is a hash of the content: an unchanged list keeps its name (and its kernel set) from one
 * configuration to the next, which is what lets an incremental apply reuse it.
 */
class SetPool {
  readonly sets: SetDef[] = [];
  private names = new Set<string>();

  add(list: SetDef[]): void {
    for (const s of list) {
      if (this.names.has(s.name)) continue;
      this.names.add(s.name);
      this.sets.push(s);
    }
  }
}

/** `elements` as a rule operand: the element itself, or a reference to a named set (noted in `used`). */
function operand(type: SetDef["type"], elements: string[], used: SetDef[]): string {
  if (elements.length === 1) return elements[0];
  const name = nftSetName(type, elements);
  if (!used.some((s) => s.name === name)) used.push({ name, type, elements });
  return `@${name}`;
}

/** null: the list was given but holds nothing of this family (the rule can never match). */
function addressSet(list: WireIpAddress[] | null | undefined, family: Family, used: SetDef[]): string | null | undefined {
  if (!list || list.length === 0) return undefined; // any
  const merged = mergeIntervals(list.map((a) => addressInterval(a, family)).filter((i): i is Interval => i !== null));
  if (!merged.length) return null;
  return operand(family === 4 ? "ipv4_addr" : "ipv6_addr", merged.map((i) => intervalText(i, family)), used);
}

/** What one firewall rule puts into the forward chain: its nft rules and the named sets they use, or why it is left out. */
export interface RuleFragment {
  forward: string[];
  sets: SetDef[];
  skipped: string | null;
}

/** Rule fragments by rule content, kept from one configuration to the next (see firewallModel). */
export type FirewallModelCache = Map<string, RuleFragment>;

/** One firewall rule (the `n`th of its config) → its fragment. */
function ruleFragment(r: WireFirewallRule, n: number): RuleFragment {
  const sets: SetDef[] = [];
  const forward: string[] = [];
  const left = (why: string): RuleFragment => ({ forward: [], sets: [], skipped: `rule ${r.id ?? n}${r.comment ? ` (${nftComment(r.comment)})` : ""}: ${why}` });
  const family = familyOf(r.ip_version);
  const ipKw = family === 4 ? "ip" : "ip6";
  const src = addressSet(r.source_addrs, family, sets);
  const dst = addressSet(r.destination_addrs, family, sets);
  if (src === null || dst === null) return left(`no ${family === 4 ? "IPv4" : "IPv6"} ${src === null ? "source" : "destination"} address`);
  const ports = portElements(r.destination_ports ?? []);
  if ((r.destination_ports ?? []).length > 0 && ports.length === 0) return left("no valid destination port");
  let protos = [...new Set((r.protocols ?? []).map(protocolOf).filter((p): p is Proto => p !== null))];
  if ((r.protocols ?? []).length > 0 && protos.length === 0) return left("no known protocol");
  const base = [`meta nfproto ${family === 4 ? "ipv4" : "ipv6"}`];
  if (src) base.push(`${ipKw} saddr ${src}`);
  if (dst) base.push(`${ipKw} daddr ${dst}`);
  const verdict = verdictOf(r.verdict);
  const comment = r.comment ? ` comment ${quote(nftComment(r.comment))}` : "";
  const portSet = ports.length ? operand("inet_service", ports, sets) : "";
  if (protos.length === 0 && ports.length > 0) protos = ["tcp", "udp"];
  if (protos.length === 0) forward.push(`${base.join(" ")} ${verdict}${comment}`);
  for (const p of protos) {
    const parts = [...base];
    if (p === "icmp") parts.push(`meta l4proto ${family === 4 ? "icmp" : "ipv6-icmp"}`);
    else if (ports.length) parts.push(`${p} dport ${portSet}`);
    else parts.push(`meta l4proto ${p}`);
    forward.push(`${parts.join(" ")} ${verdict}${comment}`);
  }
  return { forward, sets, skipped: null };
}

/** What one configuration puts into the interface's table (the input of both scripts). */
export interface FirewallModel {
  ifname: string;
  table: string;
  policy: "accept" | "drop";
  /** Named sets, in the order of first use. */
  sets: SetDef[];
  /** The forward chain's rules after the two fixed ones, in order. */
  forward: string[];
  /** The postrouting chain's rules; the chain exists only when there is at least one. */
  nat: string[];
}

export interface BuildResult {
  model: FirewallModel;
  /** The whole-table replacement. */
  script: string;
  /** Rules left out and why (for the agent's log). */
  skipped: string[];
}

/**
 * The table one configuration asks for. With `cache` (the agent keeps one), a rule whose
 * content was in the previous configuration reuses the fragment built then: parsing and
 * merging thousands of address lists is most of the cost, and one ACL change leaves most rules
 * as they were. The cache then holds the fragments of this configuration only.
 */
export function firewallModel(ifname: string, cfg: WireFirewallConfig, cache?: FirewallModelCache): { model: FirewallModel; skipped: string[] } {
  const iface = quote(ifname);
  const pool = new SetPool();
  const forward: string[] = [];
  const nat: string[] = [];
  const skipped: string[] = [];
  const used: FirewallModelCache = new Map();

  (cfg.rules ?? []).forEach((r, idx) => {
    const n = idx + 1;
    // The position only matters to the log line of a rule without an id.
    const key = cache ? `${r.id === undefined || r.id === null ? `#${n} ` : ""}${JSON.stringify(r)}` : "";
    const f = cache?.get(key) ?? used.get(key) ?? ruleFragment(r, n);
    if (cache) used.set(key, f);
    if (f.skipped) skipped.push(f.skipped);
    else {
      pool.add(f.sets);
      for (const line of f.forward) forward.push(line);
    }
  });
  if (cache) {
    cache.clear();
    for (const [k, f] of used) cache.set(k, f);
  }

  (cfg.snat_bindings ?? []).forEach((b, idx) => {
    const n = idx + 1;
    const pub = b.public_ip ? parseIp(b.public_ip.trim()) : null;
    const label = `SNAT binding ${b.id ?? n}`;
    if (!pub) {
      skipped.push(`${label}: invalid public IP ${JSON.stringify(b.public_ip ?? "")}`);
      return;
    }
    const ipKw = pub.version === 4 ? "ip" : "ip6";
    const natSets: SetDef[] = [];
    const src = addressSet(b.source_addrs, pub.version, natSets);
    if (src === null) {
      skipped.push(`${label}: no source address of the public IP's family`);
      return;
    }
    const parts = [`meta nfproto ${pub.version === 4 ? "ipv4" : "ipv6"}`];
    parts.push(src ? `${ipKw} saddr ${src}` : `iifname ${iface}`);
    parts.push(`oifname != ${iface}`, `snat ${ipKw} to ${formatIp(pub.value, pub.version)}`);
    const comment = b.comment ? ` comment ${quote(nftComment(b.comment))}` : "";
    pool.add(natSets);
    nat.push(`${parts.join(" ")}${comment}`);
  });

  return { model: { ifname, table: firewallTableName(ifname), policy: isDeny(cfg.default_policy) ? "drop" : "accept", sets: pool.sets, forward, nat }, skipped };
}

function setLines(lines: string[], s: SetDef, indent: string): void {
  lines.push(`${indent}set ${s.name} {`, `${indent}\ttype ${s.type}`, `${indent}\tflags interval`);
  lines.push(`${indent}\telements = { ${s.elements.join(", ")} }`, `${indent}}`);
}

const FORWARD_HOOK = "type filter hook forward priority filter;";
const NAT_HOOK = "type nat hook postrouting priority srcnat; policy accept;";

/** The two rules every forward chain starts with. */
const fixedForward = (ifname: string) => [`iifname != ${quote(ifname)} accept`, "ct state established,related accept"];

/** The whole table, replacing whatever is there, in one transaction. */
export function fullScript(m: FirewallModel): string {
  const lines: string[] = [];
  // Create-if-missing then delete: the replacement is one atomic transaction either way.
  lines.push(`table ${NFT_FAMILY} ${m.table}`, `delete table ${NFT_FAMILY} ${m.table}`, `table ${NFT_FAMILY} ${m.table} {`);
  for (const s of m.sets) setLines(lines, s, "\t");
  lines.push(`\tchain forward {`, `\t\t${FORWARD_HOOK} policy ${m.policy};`);
  for (const r of [...fixedForward(m.ifname), ...m.forward]) lines.push(`\t\t${r}`);
  lines.push(`\t}`);
  if (m.nat.length) {
    lines.push(`\tchain postrouting {`, `\t\t${NAT_HOOK}`);
    for (const r of m.nat) lines.push(`\t\t${r}`);
    lines.push(`\t}`);
  }
  lines.push(`}`);
  return `${lines.join("\n")}\n`;
}

/**
 * The handles of the forward chain's rules in an `nft -a list table` listing, in chain order
 * (the two fixed rules first). Null when the listing does not show the chain `model` built
 * (another number of rules, no such chain): the next incremental script then rewrites the
 * whole chain instead of single rules.
 */
export function forwardHandles(listing: string | null, model: FirewallModel): number[] | null {
  if (!listing) return null;
  const lines = listing.split("\n");
  const start = lines.findIndex((l) => /^\tchain forward \{/.test(l));
  if (start < 0) return null;
  const handles: number[] = [];
  for (let i = start + 1; i < lines.length && lines[i] !== "\t}"; i++) {
    const m = /^\t\t.* # handle (\d+)$/.exec(lines[i]);
    if (m) handles.push(Number(m[1]));
  }
  return handles.length === fixedForward(model.ifname).length + model.forward.length ? handles : null;
}

const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** True when both models ask for the same table (set names stand for their contents). */
export function sameFirewall(a: FirewallModel, b: FirewallModel): boolean {
  return (
    a.table === b.table &&
    a.ifname === b.ifname &&
    a.policy === b.policy &&
    sameList(a.forward, b.forward) &&
    sameList(a.nat, b.nat) &&
    sameList(
      a.sets.map((s) => s.name),
      b.sets.map((s) => s.name),
    )
  );
}

/**
 * The rules two forward chains keep in common, in order: a longest common subsequence of the two
 * lists of rule texts, as a map from the index in `b` to the index in `a`. Each text of `b` is
 * matched with the next unused equal text of `a`, then the longest run of matches increasing in
 * `a` is kept (patience-style, O(n log n)). A rule moved (a deployed edit gets a new id, so it
 * moves within its section) thus costs one delete and one insert, not the rules between.
 */
export function commonRules(a: readonly string[], b: readonly string[]): Map<number, number> {
  const at = new Map<string, number[]>();
  for (let i = a.length - 1; i >= 0; i--) {
    const list = at.get(a[i]);
    if (list) list.push(i);
    else at.set(a[i], [i]);
  }
  // Candidates (j, i) in j order; the longest run with increasing i (tails + back links).
  const js: number[] = [];
  const is: number[] = [];
  for (let j = 0; j < b.length; j++) {
    const i = at.get(b[j])?.pop();
    if (i !== undefined) {
      js.push(j);
      is.push(i);
    }
  }
  const tails: number[] = []; // tails[k]: candidate ending the best run of length k + 1
  const back: number[] = new Array(js.length).fill(-1);
  for (let c = 0; c < js.length; c++) {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (is[tails[mid]] < is[c]) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) back[c] = tails[lo - 1];
    tails[lo] = c;
  }
  const kept = new Map<number, number>();
  for (let c = tails.length ? tails[tails.length - 1] : -1; c >= 0; c = back[c]) kept.set(js[c], is[c]);
  return kept;
}

/**
 * One transaction that turns the table `prev` built into the table `next` asks for, touching
 * only what differs:
 *   - sets whose content is new are added (an unchanged list has the same name and is kept);
 *   - forward chain: with the handles of its rules (forwardHandles), the rules outside the longest
 *     common subsequence of the two rule lists (commonRules) are deleted by handle and the new
 *     ones inserted before the next kept rule; without them, or when most rules changed, the chain is flushed and all
 *     its rules added again. Adding a rule costs the kernel a look-up of each set it names, so
 *     thousands of unchanged rules are worth keeping;
 *   - the forward policy is set when it changed;
 *   - the postrouting chain is rewritten (created, flushed, deleted) when the SNAT rules changed;
 *   - sets no rule refers to any more are deleted, last.
 * Null when the two do not describe the same table (another interface). The caller falls back
 * to fullScript when this fails (the table was changed behind the agent's back, say).
 */
export function incrementalScript(prev: FirewallModel, next: FirewallModel, handles: number[] | null = null): string | null {
  if (prev.table !== next.table || prev.ifname !== next.ifname) return null;
  const t = `${NFT_FAMILY} ${next.table}`;
  const had = new Set(prev.sets.map((s) => s.name));
  const keep = new Set(next.sets.map((s) => s.name));
  const fixed = fixedForward(next.ifname).length;
  const lines: string[] = [];
  const added = next.sets.filter((s) => !had.has(s.name));
  if (added.length) {
    lines.push(`table ${t} {`);
    for (const s of added) setLines(lines, s, "\t");
    lines.push(`}`);
  }
  if (prev.policy !== next.policy) lines.push(`chain ${t} forward { ${FORWARD_HOOK} policy ${next.policy}; }`);

  const a = prev.forward;
  const b = next.forward;
  const kept = commonRules(a, b);
  const removed = a.length - kept.size;
  const inserted = b.length - kept.size;
  if (removed === 0 && inserted === 0) {
    // The same rules (a policy or SNAT change only).
  } else if (handles && handles.length === fixed + a.length && removed + inserted <= Math.max(16, a.length / 2)) {
    const keptA = new Set(kept.values());
    for (let i = 0; i < a.length; i++) if (!keptA.has(i)) lines.push(`delete rule ${t} forward handle ${handles[fixed + i]}`);
    // A new rule goes right before the next kept rule (`insert … position H` lands before H; a
    // run of new rules inserted in order before one H stays in order), or at the chain's end.
    const before: (number | null)[] = new Array(b.length).fill(null);
    let nextHandle: number | null = null;
    for (let j = b.length - 1; j >= 0; j--) {
      const i = kept.get(j);
      if (i !== undefined) nextHandle = handles[fixed + i];
      else before[j] = nextHandle;
    }
    for (let j = 0; j < b.length; j++) {
      if (kept.has(j)) continue;
      const h = before[j];
      lines.push(h === null ? `add rule ${t} forward ${b[j]}` : `insert rule ${t} forward position ${h} ${b[j]}`);
    }
  } else {
    lines.push(`flush chain ${t} forward`);
    for (const r of [...fixedForward(next.ifname), ...b]) lines.push(`add rule ${t} forward ${r}`);
  }

  if (!sameList(prev.nat, next.nat)) {
    if (prev.nat.length) lines.push(`flush chain ${t} postrouting`);
    else lines.push(`chain ${t} postrouting { ${NAT_HOOK} }`);
    if (next.nat.length) for (const r of next.nat) lines.push(`add rule ${t} postrouting ${r}`);
    else lines.push(`delete chain ${t} postrouting`);
  }
  for (const s of prev.sets) if (!keep.has(s.name)) lines.push(`delete set ${t} ${s.name}`);
  return `${lines.join("\n")}\n`;
}

/** The whole table for one interface. */
export function buildFirewall(ifname: string, cfg: WireFirewallConfig): BuildResult {
  const { model, skipped } = firewallModel(ifname, cfg);
  return { model, script: fullScript(model), skipped };
}
