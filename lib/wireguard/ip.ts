/**
 * IPv4/IPv6 addresses and networks as bigints, and device address allocation inside a
 * location network. Pure functions, no I/O.
 *
 * Conventions: an address is a `bigint` (0 ≤ value < 2^32 or 2^128) plus its version; a
 * `Cidr` keeps the address as written ("10.1.0.1/24" keeps the host part .1, which for a
 * location is its gateway address).
 */

export type IpVersion = 4 | 6;

export interface Cidr {
  version: IpVersion;
  /** the address as written (host part kept) */
  addr: bigint;
  prefix: number;
  bits: 32 | 128;
}

const V4_OCTET = /^(?:0|[1-9]\d{0,2})$/;
const V6_GROUP = /^[0-9a-fA-F]{1,4}$/;

function parseV4(text: string): bigint | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!V4_OCTET.test(part)) return null; // digits only, no leading zeros
    const n = Number(part);
    if (n > 255) return null;
    value = value * 256 + n;
  }
  return BigInt(value);
}

/** Colon-separated hex groups ("" → none); null when a group is malformed. */
function hexGroups(part: string): number[] | null {
  if (part === "") return [];
  const groups: number[] = [];
  for (const g of part.split(":")) {
    if (!V6_GROUP.test(g)) return null;
    groups.push(parseInt(g, 16));
  }
  return groups;
}

function parseV6(text: string): bigint | null {
  if (text.length < 2 || text.length > 45) return null; // longest form: 6 groups + dotted quad
  let s = text;
  // An embedded dotted quad may only be the last 32 bits: rewrite it as two hex groups.
  const lastColon = s.lastIndexOf(":");
  if (lastColon < 0) return null;
  if (s.includes(".", lastColon)) {
    const v4 = parseV4(s.slice(lastColon + 1));
    if (v4 === null) return null;
    const n = Number(v4);
    s = `${s.slice(0, lastColon + 1)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const dbl = s.indexOf("::");
  let groups: number[];
  if (dbl < 0) {
    const all = hexGroups(s);
    if (!all || all.length !== 8) return null;
    groups = all;
  } else {
    if (s.indexOf("::", dbl + 1) >= 0) return null; // at most one "::" (also rejects ":::")
    const head = hexGroups(s.slice(0, dbl));
    const tail = hexGroups(s.slice(dbl + 2));
    if (!head || !tail || head.length + tail.length > 7) return null; // "::" stands for ≥ 1 group
    groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  }
  let value = 0n;
  for (const g of groups) value = (value << 16n) | BigInt(g);
  return value;
}

/** Strict textual IP parse; no whitespace, no zone ids, no leading zeros in IPv4 octets. */
export function parseIp(text: string): { version: IpVersion; value: bigint } | null {
  if (typeof text !== "string") return null;
  if (text.includes(":")) {
    const value = parseV6(text);
    return value === null ? null : { version: 6, value };
  }
  const value = parseV4(text);
  return value === null ? null : { version: 4, value };
}

function formatV4(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

const MAX: Record<IpVersion, bigint> = { 4: (1n << 32n) - 1n, 6: (1n << 128n) - 1n };

/**
 * Canonical text. IPv6 follows RFC 5952: lowercase, no leading zeros, the longest run
 * (first one on ties) of two or more zero groups compressed to "::"; IPv4-mapped addresses
 * are written "::ffff:1.2.3.4" (RFC 5952 §5, as Rust and Go print them).
 */
export function formatIp(value: bigint, version: IpVersion): string {
  if (value < 0n || value > MAX[version]) throw new RangeError(`not an IPv${version} address value: ${value}`);
  if (version === 4) return formatV4(Number(value));
  if (value >> 32n === 0xffffn) return `::ffff:${formatV4(Number(value & 0xffffffffn))}`;
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((value >> BigInt(i * 16)) & 0xffffn));
  let bestStart = -1;
  let bestLen = 1; // a single zero group is never compressed
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) [bestStart, bestLen] = [i, j - i];
    i = j;
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(":");
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLen))}`;
}

function makeCidr(ipText: string, prefixText: string | null): Cidr | null {
  const ip = parseIp(ipText);
  if (!ip) return null;
  const bits = ip.version === 4 ? 32 : 128;
  let prefix = bits;
  if (prefixText !== null) {
    if (!/^(?:0|[1-9]\d{0,2})$/.test(prefixText)) return null;
    prefix = Number(prefixText);
    if (prefix > bits) return null;
  }
  return { version: ip.version, addr: ip.value, prefix, bits };
}

/** "10.1.0.1/24", "fd00::1/64"; the prefix is required (a bare IP gives null). */
export function parseCidr(text: string): Cidr | null {
  if (typeof text !== "string") return null;
  const slash = text.indexOf("/");
  if (slash < 0) return null;
  return makeCidr(text.slice(0, slash), text.slice(slash + 1));
}

/** Like parseCidr, but a bare IP is accepted as a /32 or /128. */
export function parseCidrOrIp(text: string): Cidr | null {
  if (typeof text !== "string") return null;
  const slash = text.indexOf("/");
  return slash < 0 ? makeCidr(text, null) : makeCidr(text.slice(0, slash), text.slice(slash + 1));
}

/** The address as written, with its prefix: "10.1.0.1/24". */
export function formatCidr(c: Cidr): string {
  return `${formatIp(c.addr, c.version)}/${c.prefix}`;
}

/** Number of addresses in the network (2^(bits − prefix)). */
function size(c: Cidr): bigint {
  return 1n << BigInt(c.bits - c.prefix);
}

export function networkAddress(c: Cidr): bigint {
  return c.addr & ~(size(c) - 1n);
}

/** The highest address of the network (the broadcast address for IPv4). */
export function lastAddress(c: Cidr): bigint {
  return networkAddress(c) + size(c) - 1n;
}

/** The network itself, host part cleared: "10.1.0.0/24". */
export function networkCidrText(c: Cidr): string {
  return `${formatIp(networkAddress(c), c.version)}/${c.prefix}`;
}

export function containsIp(c: Cidr, ip: bigint, version: IpVersion): boolean {
  return version === c.version && ip >= networkAddress(c) && ip <= lastAddress(c);
}

/** Whether the two networks share an address; always false across versions. */
export function cidrsOverlap(a: Cidr, b: Cidr): boolean {
  return a.version === b.version && networkAddress(a) <= lastAddress(b) && networkAddress(b) <= lastAddress(a);
}

/** The addresses of `c` that are never handed to devices (deduplicated, all inside `c`). */
function reserved(c: Cidr): Set<bigint> {
  const r = new Set<bigint>([networkAddress(c), c.addr]);
  if (c.version === 4) r.add(lastAddress(c));
  return r;
}

/** Assignable device addresses of a location network: every host address except the network address, the v4 broadcast address and the location's own (gateway) address. */
export function capacity(c: Cidr): bigint {
  return size(c) - BigInt(reserved(c).size);
}

/** Is `ip` a valid device address inside `c` (not network, not broadcast, not the gateway)? */
export function isAssignable(c: Cidr, ip: bigint): boolean {
  const net = networkAddress(c);
  const last = lastAddress(c);
  if (ip <= net || ip > last || ip === c.addr) return false;
  return !(c.version === 4 && ip === last);
}

/**
 * Ascending scan over [from, to] for addresses that are assignable and not used; calls
 * `take` for each until it returns false. The scan visits at most |used| + 3 + k addresses
 * before producing its k-th result, so it never walks a huge (/64) range blindly.
 */
function scan(c: Cidr, used: ReadonlySet<bigint>, from: bigint, to: bigint, take: (ip: bigint) => boolean): void {
  const skip = reserved(c);
  for (let ip = from; ip <= to; ip++) {
    if (skip.has(ip) || used.has(ip)) continue;
    if (!take(ip)) return;
  }
}

/**
 * First free assignable address (ascending) not in `used` (values of the same version), or
 * null when full. Must be fast: 10,000 used addresses in a /16 must take milliseconds
 * (e.g. start from a hint and skip), and a /64 must not iterate 2^64.
 *
 * `hint` (optional) is where the search starts, typically one past the previously
 * allocated address when allocating in a loop: the result is then the first free address
 * at or after `hint`, wrapping around to the start of the network when there is none
 * after it. Without a hint (or with a hint at or below the first free address) the result
 * is the lowest free assignable address. A hint outside the network is ignored.
 */
export function firstFree(c: Cidr, used: ReadonlySet<bigint>, hint?: bigint): bigint | null {
  const start = networkAddress(c) + 1n;
  const end = lastAddress(c);
  const from = hint !== undefined && hint > start && hint <= end ? hint : start;
  let found: bigint | null = null;
  const take = (ip: bigint) => {
    found = ip;
    return false;
  };
  scan(c, used, from, end, take);
  if (found === null && from > start) scan(c, used, start, from - 1n, take);
  return found;
}

/** Allocate `n` addresses in one pass (for bulk work): ascending, skipping used; returns fewer when full. */
export function allocateMany(c: Cidr, used: ReadonlySet<bigint>, n: number): bigint[] {
  const out: bigint[] = [];
  if (!(n >= 1)) return out;
  scan(c, used, networkAddress(c) + 1n, lastAddress(c), (ip) => out.push(ip) < n);
  return out;
}

/** Parse a comma-separated list of CIDRs ("10.1.0.1/24, fd00::1/64"): returns the list, or an error message for the first bad entry ("invalid address with netmask: X"). Empty entries ignored; at least one required. */
export function parseCidrList(text: string): { ok: true; value: Cidr[] } | { ok: false; error: string } {
  const value: Cidr[] = [];
  for (const raw of String(text ?? "").split(",")) {
    const entry = raw.trim();
    if (!entry) continue;
    const c = parseCidr(entry);
    if (!c) return { ok: false, error: `invalid address with netmask: ${entry}` };
    value.push(c);
  }
  if (value.length === 0) return { ok: false, error: "at least one address with netmask is required" };
  return { ok: true, value };
}

/**
 * An address split for display the way defguard's network-device dialog shows it: the leading
 * segments (octets, or zero-padded 16-bit groups for IPv6) that are the same for every address
 * of the network are `network_part` (with its trailing separator); the rest is
 * `modifiable_part`. E.g. 10.1.0.3 in 10.1.0.1/24 → "10.1.0." + "3", prefix "24".
 */
export function splitIp(ip: bigint, c: Cidr): { ip: string; network_part: string; modifiable_part: string; network_prefix: string } {
  const count = c.version === 4 ? 4 : 8;
  const width = c.version === 4 ? 8n : 16n;
  const mask = (1n << width) - 1n;
  const segments = (v: bigint) => Array.from({ length: count }, (_, i) => (v >> (width * BigInt(count - 1 - i))) & mask);
  const ipSeg = segments(ip);
  const first = segments(networkAddress(c));
  const last = segments(lastAddress(c));
  const sep = c.version === 4 ? "." : ":";
  const fmt = (n: bigint) => (c.version === 4 ? n.toString() : n.toString(16).padStart(4, "0"));
  let fixed = 0;
  while (fixed < count && first[fixed] === last[fixed]) fixed++;
  return {
    ip: formatIp(ip, c.version),
    network_part: ipSeg.slice(0, fixed).map((s) => `${fmt(s)}${sep}`).join(""),
    modifiable_part: ipSeg.slice(fixed).map(fmt).join(sep),
    network_prefix: String(c.prefix),
  };
}
