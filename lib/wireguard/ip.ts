/**
 * Device address allocation inside a location network: which addresses a location hands to
 * devices (not the network address, the IPv4 broadcast address or the location's own address)
 * and finding free ones quickly. Address parsing, text and range arithmetic are in lib/net.
 */
import { cidrSize, formatIp, lastAddress, networkAddress, parseCidr, type Cidr } from "../net/ip";

/** The addresses of `c` that are never handed to devices (deduplicated, all inside `c`). */
function reserved(c: Cidr): Set<bigint> {
  const r = new Set<bigint>([networkAddress(c), c.addr]);
  if (c.version === 4) r.add(lastAddress(c));
  return r;
}

/** Assignable device addresses of a location network: every host address except the network address, the v4 broadcast address and the location's own (gateway) address. */
export function capacity(c: Cidr): bigint {
  return cidrSize(c) - BigInt(reserved(c).size);
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
