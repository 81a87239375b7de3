/**
 * The ACL compiler (docs/acl.md): one location's applied, enabled, unexpired rules and the
 * devices there → one enterprise.firewall.FirewallConfig, in the shape the gRPC layer sends
 * (proto-loader: enums as names, oneofs as the set field). Pure: no I/O, so the explainer, the
 * impact preview and the benchmark run exactly what the gateways get.
 *
 * Per rule (and per destination alias of a rule), per IP family the location has:
 *   - sources: the family's addresses of the allowed devices minus the denied ones
 *     (allowed users and group members, minus denied users; allowed devices; all network
 *     devices when allowed), merged into the fewest addresses / networks / ranges;
 *   - an ALLOW rule from those sources to the destination (left out when no source remains),
 *     and a DENY rule from anyone to the same destination;
 *   - a family is compiled only when the destination names addresses of that family or names
 *     no address at all, so an IPv4-only rule never opens or closes IPv6 (and vice versa).
 * Every ALLOW comes before every DENY; the default policy ends the chain.
 */
import { exactCidr, intervalsContain, mergeIntervals, parseAddressEntry, parsePortList, type Interval } from "../net/ranges";
import { formatIp, parseCidrOrIp, parseIp, type IpVersion } from "../net/ip";

export type WireIpAddress = { ip: string } | { ip_subnet: string } | { ip_range: { start: string; end: string } };
export type WirePort = { single_port: number } | { port_range: { start: number; end: number } };
export type WireProtocol = "ICMP" | "TCP" | "UDP";

export interface WireFirewallRule {
  id: number;
  source_addrs: WireIpAddress[];
  destination_addrs: WireIpAddress[];
  destination_ports: WirePort[];
  protocols: WireProtocol[];
  verdict: "ALLOW" | "DENY";
  comment: string;
  ip_version: "IPV4" | "IPV6";
}

export interface WireFirewallConfig {
  default_policy: "ALLOW" | "DENY";
  rules: WireFirewallRule[];
  snat_bindings: never[];
}

export interface CompileRule {
  id: number;
  name: string;
  allowAllUsers: boolean;
  denyAllUsers: boolean;
  allowAllNetworkDevices: boolean;
  denyAllNetworkDevices: boolean;
  allowedUsers: number[];
  deniedUsers: number[];
  allowedGroups: number[];
  deniedGroups: number[];
  allowedDevices: number[];
  deniedDevices: number[];
  /** Canonical entries as stored ("192.0.2.0/24", "192.0.2.1-192.0.2.9"). */
  destination: string[];
  ports: string[];
  protocols: number[];
  aliases: number[];
}

export interface CompileAlias {
  id: number;
  name: string;
  kind: "destination" | "component";
  destination: string[];
  ports: string[];
  protocols: number[];
}

export interface CompileDevice {
  id: number;
  userId: number;
  type: "user" | "network";
  /** Whether the device is a peer at all (owner active for user devices). */
  active: boolean;
  /** Its addresses in this location. */
  ips: string[];
}

export interface CompileInput {
  /** The location's interface addresses ("10.1.0.1/24", "fd00::1/64"): which families exist. */
  addresses: string[];
  defaultAllow: boolean;
  rules: CompileRule[];
  aliases: Map<number, CompileAlias>;
  devices: CompileDevice[];
  /** group id → member user ids */
  groupMembers: Map<number, number[]>;
}

/** Where a compiled rule came from, index for index with `config.rules` (for the explainer). */
export interface RuleOrigin {
  ruleId: number;
  ruleName: string;
  aliasId: number | null;
  aliasName: string | null;
}

export interface Compiled {
  config: WireFirewallConfig;
  origins: RuleOrigin[];
  /** Emitted set elements (source + destination address entries), for the benchmark. */
  elements: number;
}

const PROTO_NAME: Record<number, WireProtocol> = { 1: "ICMP", 6: "TCP", 17: "UDP" };
const FAMILIES: IpVersion[] = [4, 6];

/** Merged intervals → the fewest wire entries: an address, a network when exact, else a range. */
export function addressElements(list: Interval[], version: IpVersion): WireIpAddress[] {
  return list.map((i) => {
    if (i.start === i.end) return { ip: formatIp(i.start, version) };
    const prefix = exactCidr(i, version);
    if (prefix !== null) return { ip_subnet: `${formatIp(i.start, version)}/${prefix}` };
    return { ip_range: { start: formatIp(i.start, version), end: formatIp(i.end, version) } };
  });
}

export function portElements(list: Interval[]): WirePort[] {
  return list.map((p) => (p.start === p.end ? { single_port: Number(p.start) } : { port_range: { start: Number(p.start), end: Number(p.end) } }));
}

/** Destination entries split by family and merged. */
export function destinationIntervals(entries: string[]): Record<IpVersion, Interval[]> {
  const out: Record<IpVersion, Interval[]> = { 4: [], 6: [] };
  for (const e of entries) {
    const r = parseAddressEntry(e);
    if (r.ok) out[r.entry.version].push({ start: r.entry.start, end: r.entry.end });
  }
  return { 4: mergeIntervals(out[4]), 6: mergeIntervals(out[6]) };
}

export function portIntervals(entries: string[]): Interval[] {
  const r = parsePortList(entries.join(","));
  return r.ok ? mergeIntervals(r.entries) : [];
}

interface Destination {
  addrs: Record<IpVersion, Interval[]>;
  ports: Interval[];
  protocols: WireProtocol[];
  aliasId: number | null;
  aliasName: string | null;
}

function protocolList(nums: number[]): WireProtocol[] {
  return [...new Set(nums)]
    .sort((a, b) => a - b)
    .map((p) => PROTO_NAME[p])
    .filter((p): p is WireProtocol => p !== undefined);
}

/**
 * Index of the devices for one compilation. Devices get dense ordinals; per family the addresses
 * are sorted once, so a rule's sources become merged intervals in one linear pass without
 * sorting or big-integer arithmetic per rule.
 *
 * Addresses that belong to no peer of the location are "don't care": WireGuard drops a packet
 * whose source is not in the sending peer's allowed IPs, so nothing entering from the interface
 * can carry such a source. A run of allowed devices therefore spans the gaps between them
 * (unassigned addresses, devices that are not peers), and only a device that is a peer and not
 * allowed splits it: "all users but five" is six ranges, not one per disabled device. A device
 * that becomes a peer changes the compiled config, and the hub sends that firewall before the
 * peer (lib/gateways/hub.ts), so the new peer never meets a range that spanned its address.
 */
class DeviceIndex {
  readonly ordinal = new Map<number, number>();
  readonly byUser = new Map<number, number[]>();
  readonly networkOrdinals: number[] = [];
  readonly userOrdinals: number[] = [];
  readonly sorted: Record<IpVersion, { values: bigint[]; owners: Int32Array }>;
  readonly size: number;

  constructor(devices: CompileDevice[]) {
    const addrs: Record<IpVersion, { value: bigint; owner: number }[]> = { 4: [], 6: [] };
    let n = 0;
    for (const d of devices) {
      if (!d.active || this.ordinal.has(d.id)) continue;
      const o = n++;
      this.ordinal.set(d.id, o);
      if (d.type === "network") this.networkOrdinals.push(o);
      else {
        this.userOrdinals.push(o);
        const list = this.byUser.get(d.userId);
        if (list) list.push(o);
        else this.byUser.set(d.userId, [o]);
      }
      for (const text of d.ips) {
        const ip = parseIp(text.includes("/") ? text.slice(0, text.indexOf("/")) : text);
        if (ip) addrs[ip.version].push({ value: ip.value, owner: o });
      }
    }
    this.size = n;
    const build = (list: { value: bigint; owner: number }[]) => {
      list.sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
      return { values: list.map((x) => x.value), owners: Int32Array.from(list.map((x) => x.owner)) };
    };
    this.sorted = { 4: build(addrs[4]), 6: build(addrs[6]) };
  }

  /** The fewest intervals covering the marked devices' addresses of the family and no other peer's. */
  intervals(mark: Uint8Array, version: IpVersion): Interval[] {
    const { values, owners } = this.sorted[version];
    const out: Interval[] = [];
    let open = -1; // index where the current run of marked addresses started
    for (let i = 0; i < values.length; i++) {
      if (mark[owners[i]] === 1) {
        if (open < 0) open = i;
      } else if (open >= 0) {
        out.push({ start: values[open], end: values[i - 1] });
        open = -1;
      }
    }
    if (open >= 0) out.push({ start: values[open], end: values[values.length - 1] });
    return out;
  }
}

/** The devices (as ordinals marked 1) a rule's sources come to: allowed principals minus denied ones. */
function ruleSourceMark(rule: CompileRule, idx: DeviceIndex, groupMembers: Map<number, number[]>): Uint8Array {
  const mark = new Uint8Array(idx.size);
  const markUsers = (direct: number[], groups: number[], v: 0 | 1) => {
    for (const u of direct) for (const o of idx.byUser.get(u) ?? []) mark[o] = v;
    for (const g of groups) for (const u of groupMembers.get(g) ?? []) for (const o of idx.byUser.get(u) ?? []) mark[o] = v;
  };
  if (rule.allowAllUsers) for (const o of idx.userOrdinals) mark[o] = 1;
  else markUsers(rule.allowedUsers, rule.allowedGroups, 1);
  if (rule.allowAllNetworkDevices) for (const o of idx.networkOrdinals) mark[o] = 1;
  for (const id of rule.allowedDevices) {
    const o = idx.ordinal.get(id);
    if (o !== undefined) mark[o] = 1;
  }
  // Denials last: they win over every allowance.
  if (rule.denyAllUsers) for (const o of idx.userOrdinals) mark[o] = 0;
  else markUsers(rule.deniedUsers, rule.deniedGroups, 0);
  if (rule.denyAllNetworkDevices) for (const o of idx.networkOrdinals) mark[o] = 0;
  for (const id of rule.deniedDevices) {
    const o = idx.ordinal.get(id);
    if (o !== undefined) mark[o] = 0;
  }
  return mark;
}

/** Which IP families the location's interface has. */
export function locationFamilies(addresses: string[]): Set<IpVersion> {
  const s = new Set<IpVersion>();
  for (const a of addresses) {
    const c = parseCidrOrIp(a.trim());
    if (c) s.add(c.version);
  }
  return s;
}

export function compileFirewall(input: CompileInput): Compiled {
  const idx = new DeviceIndex(input.devices);
  const families = locationFamilies(input.addresses);
  const allow: { rule: WireFirewallRule; origin: RuleOrigin }[] = [];
  const deny: { rule: WireFirewallRule; origin: RuleOrigin }[] = [];
  let elements = 0;

  for (const rule of [...input.rules].sort((a, b) => a.id - b.id)) {
    const mark = ruleSourceMark(rule, idx, input.groupMembers);
    const srcByFamily: Record<IpVersion, Interval[]> = { 4: families.has(4) ? idx.intervals(mark, 4) : [], 6: families.has(6) ? idx.intervals(mark, 6) : [] };

    const aliases = rule.aliases.map((id) => input.aliases.get(id)).filter((a): a is CompileAlias => a !== undefined);
    const components = aliases.filter((a) => a.kind === "component");
    const destAliases = aliases.filter((a) => a.kind === "destination");

    const mainEntries = [...rule.destination, ...components.flatMap((a) => a.destination)];
    const mainPorts = [...rule.ports, ...components.flatMap((a) => a.ports)];
    const mainProtocols = [...rule.protocols, ...components.flatMap((a) => a.protocols)];
    const destinations: Destination[] = [];
    const manualEmpty = mainEntries.length === 0 && mainPorts.length === 0 && mainProtocols.length === 0;
    // A rule made only of destination aliases has no destination of its own (not "anywhere").
    if (!(destAliases.length > 0 && manualEmpty)) {
      destinations.push({ addrs: destinationIntervals(mainEntries), ports: portIntervals(mainPorts), protocols: protocolList(mainProtocols), aliasId: null, aliasName: null });
    }
    for (const a of destAliases) {
      destinations.push({ addrs: destinationIntervals(a.destination), ports: portIntervals(a.ports), protocols: protocolList(a.protocols), aliasId: a.id, aliasName: a.name });
    }

    for (const d of destinations) {
      const anyAddress = d.addrs[4].length > 0 || d.addrs[6].length > 0;
      const label = `ACL ${rule.id} - ${rule.name}${d.aliasId !== null ? `, ALIAS ${d.aliasId} - ${d.aliasName}` : ""}`;
      const origin: RuleOrigin = { ruleId: rule.id, ruleName: rule.name, aliasId: d.aliasId, aliasName: d.aliasName };
      for (const f of FAMILIES) {
        if (!families.has(f)) continue;
        if (anyAddress && d.addrs[f].length === 0) continue; // the rule names only the other family
        const dst = addressElements(d.addrs[f], f);
        const ipVersion = f === 4 ? "IPV4" : "IPV6";
        if (srcByFamily[f].length > 0) {
          const src = addressElements(srcByFamily[f], f);
          elements += src.length + dst.length;
          allow.push({
            rule: { id: rule.id, source_addrs: src, destination_addrs: dst, destination_ports: portElements(d.ports), protocols: d.protocols, verdict: "ALLOW", comment: `${label} ALLOW`, ip_version: ipVersion },
            origin,
          });
        }
        elements += dst.length;
        deny.push({
          rule: { id: rule.id, source_addrs: [], destination_addrs: dst, destination_ports: [], protocols: [], verdict: "DENY", comment: `${label} DENY`, ip_version: ipVersion },
          origin,
        });
      }
    }
  }

  const all = [...allow, ...deny];
  return {
    config: { default_policy: input.defaultAllow ? "ALLOW" : "DENY", rules: all.map((x) => x.rule), snat_bindings: [] },
    origins: all.map((x) => x.origin),
    elements,
  };
}

// ---------------------------------------------------------------------------------------------
// Evaluation (the explainer and the impact preview): what the gateway does with one packet.

export interface Packet {
  version: IpVersion;
  source: bigint;
  destination: bigint;
  /** IANA number: 1, 6, 17 */
  protocol: number;
  /** Destination port (TCP/UDP). */
  port: number | null;
}

/** Wire address entries → merged intervals of one family (the other family's entries dropped). */
export function wireIntervals(list: WireIpAddress[], version: IpVersion): Interval[] {
  const out: Interval[] = [];
  for (const a of list) {
    if ("ip" in a) {
      const ip = parseIp(a.ip);
      if (ip && ip.version === version) out.push({ start: ip.value, end: ip.value });
    } else if ("ip_subnet" in a) {
      const r = parseAddressEntry(a.ip_subnet);
      if (r.ok && r.entry.version === version) out.push(r.entry);
    } else {
      const s = parseIp(a.ip_range.start);
      const e = parseIp(a.ip_range.end);
      if (s && e && s.version === version && e.version === version) out.push({ start: s.value, end: e.value });
    }
  }
  return mergeIntervals(out);
}

/** A compiled rule in the form evaluation needs (parsed once). */
export interface PreparedRule {
  version: IpVersion;
  src: Interval[] | null;
  dst: Interval[] | null;
  protocols: Set<number> | null;
  ports: Interval[] | null;
  allow: boolean;
}

const PROTO_NUM: Record<WireProtocol, number> = { ICMP: 1, TCP: 6, UDP: 17 };

export function prepareRules(config: WireFirewallConfig): PreparedRule[] {
  return config.rules.map((r) => {
    const version: IpVersion = r.ip_version === "IPV6" ? 6 : 4;
    let protos = r.protocols;
    if (protos.length === 0 && r.destination_ports.length > 0) protos = ["TCP", "UDP"];
    return {
      version,
      src: r.source_addrs.length ? wireIntervals(r.source_addrs, version) : null,
      dst: r.destination_addrs.length ? wireIntervals(r.destination_addrs, version) : null,
      protocols: protos.length ? new Set(protos.map((p) => PROTO_NUM[p])) : null,
      ports: r.destination_ports.length ? mergeIntervals(r.destination_ports.map((x) => ("single_port" in x ? { start: BigInt(x.single_port), end: BigInt(x.single_port) } : { start: BigInt(x.port_range.start), end: BigInt(x.port_range.end) }))) : null,
      allow: r.verdict === "ALLOW",
    };
  });
}

/**
 * Whether one compiled rule matches the packet, the way the gateway's nft rules do: same family;
 * an empty address list matches any address; ports without protocols mean TCP and UDP; ICMP
 * ignores ports (docs/gateway-protocol.md).
 */
export function ruleMatches(r: PreparedRule, p: Packet): boolean {
  if (r.version !== p.version) return false;
  if (r.src && !intervalsContain(r.src, p.source)) return false;
  if (r.dst && !intervalsContain(r.dst, p.destination)) return false;
  if (r.protocols && !r.protocols.has(p.protocol)) return false;
  if (r.ports && p.protocol !== 1) {
    if (p.port === null || !intervalsContain(r.ports, BigInt(p.port))) return false;
  }
  return true;
}

/** First matching rule decides; none → the default policy. Returns the deciding rule's index or -1. */
export function evaluate(rules: PreparedRule[], defaultAllow: boolean, p: Packet): { allowed: boolean; index: number } {
  for (let i = 0; i < rules.length; i++) if (ruleMatches(rules[i], p)) return { allowed: rules[i].allow, index: i };
  return { allowed: defaultAllow, index: -1 };
}
