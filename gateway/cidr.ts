/**
 * IP / CIDR parsing and canonical text, so that what the console sends ("10.1.0.2/32",
 * "fd00::0002/128") and what `wg show dump` / `ip -j addr` print compare equal.
 * Pure, self-contained (the agent runs on hosts without the console's code).
 */

export type Family = 4 | 6;

export interface ParsedIp {
  family: Family;
  value: bigint;
}

export interface ParsedCidr extends ParsedIp {
  prefix: number;
}

const bits = (f: Family) => (f === 4 ? 32 : 128);

function parseV4(s: string): bigint | null {
  const parts = s.split(".");
  if (parts.length !== 4) return null;
  let v = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p) || (p.length > 1 && p[0] === "0")) return null;
    const n = Number(p);
    if (n > 255) return null;
    v = (v << 8n) | BigInt(n);
  }
  return v;
}

function parseV6(s: string): bigint | null {
  if (!/^[0-9A-Fa-f:.]+$/.test(s)) return null;
  let groups: string[];
  const dbl = s.indexOf("::");
  if (dbl !== s.lastIndexOf("::")) return null;
  let tailV4: bigint | null = null;
  let text = s;
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    tailV4 = parseV4(text.slice(lastColon + 1));
    if (tailV4 === null) return null;
    text = text.slice(0, lastColon + 1) + "0:0";
  }
  if (dbl >= 0) {
    const [head, tail] = text.split("::");
    const h = head ? head.split(":") : [];
    const t = tail ? tail.split(":") : [];
    const missing = 8 - h.length - t.length;
    if (missing < 1) return null;
    groups = [...h, ...Array(missing).fill("0"), ...t];
  } else {
    groups = text.split(":");
  }
  if (groups.length !== 8) return null;
  let v = 0n;
  for (const g of groups) {
    if (!/^[0-9A-Fa-f]{1,4}$/.test(g)) return null;
    v = (v << 16n) | BigInt(parseInt(g, 16));
  }
  if (tailV4 !== null) v = (v & ~0xffffffffn) | tailV4;
  return v;
}

export function parseIp(text: string): ParsedIp | null {
  const s = text.trim();
  if (s.includes(":")) {
    const v = parseV6(s.replace(/^\[|\]$/g, ""));
    return v === null ? null : { family: 6, value: v };
  }
  const v = parseV4(s);
  return v === null ? null : { family: 4, value: v };
}

/** RFC 5952 text for IPv6 (longest run of two or more zero groups as "::"), dotted quad for IPv4. */
export function formatIp(ip: ParsedIp): string {
  if (ip.family === 4) {
    const v = ip.value;
    return [24n, 16n, 8n, 0n].map((s) => String((v >> s) & 255n)).join(".");
  }
  const g: number[] = [];
  for (let i = 7; i >= 0; i--) g.push(Number((ip.value >> BigInt(i * 16)) & 0xffffn));
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen && j - i >= 2) [bestStart, bestLen] = [i, j - i];
    i = j;
  }
  const hex = g.map((n) => n.toString(16));
  if (bestStart < 0) return hex.join(":");
  return `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLen).join(":")}`;
}

/** "a.b.c.d/n", "v6/n" or a bare address (full-length prefix). */
export function parseCidr(text: string): ParsedCidr | null {
  const s = text.trim();
  const slash = s.indexOf("/");
  const ip = parseIp(slash < 0 ? s : s.slice(0, slash));
  if (!ip) return null;
  let prefix = bits(ip.family);
  if (slash >= 0) {
    const p = s.slice(slash + 1);
    if (!/^\d{1,3}$/.test(p)) return null;
    prefix = Number(p);
    if (prefix > bits(ip.family)) return null;
  }
  return { ...ip, prefix };
}

export function networkOf(c: ParsedCidr): bigint {
  const total = BigInt(bits(c.family));
  const hostBits = total - BigInt(c.prefix);
  return (c.value >> hostBits) << hostBits;
}

/** The route form WireGuard keeps for allowed IPs: host bits cleared ("10.1.0.7/24" → "10.1.0.0/24"). */
export function canonicalRoute(text: string): string {
  const c = parseCidr(text);
  if (!c) return text.trim();
  return `${formatIp({ family: c.family, value: networkOf(c) })}/${c.prefix}`;
}

/** An interface address keeps its host part ("203.0.113.1/24"); only the spelling is normalised. */
export function canonicalAddress(text: string): string {
  const c = parseCidr(text);
  if (!c) return text.trim();
  return `${formatIp(c)}/${c.prefix}`;
}

/** Last address of a CIDR (for nft ranges and tests). */
export function lastOf(c: ParsedCidr): bigint {
  const hostBits = BigInt(bits(c.family) - c.prefix);
  return networkOf(c) | ((1n << hostBits) - 1n);
}
