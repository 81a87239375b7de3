/**
 * Address and port lists as the ACL rules write them, and interval arithmetic over them.
 * Pure, no I/O; imports only ./ip, so the gateway agent and the browser forms may use it too.
 *
 * Address lists: comma separated entries, each an address ("192.0.2.1"), a network
 * ("192.0.2.0/24", host bits ignored) or a range ("192.0.2.10-192.0.2.20"; both ends of one IP
 * family, start ≤ end). Port lists: "22, 8000-9000" with every port in 1–65535.
 */
import { formatIp, lastAddress, networkAddress, parseCidrOrIp, parseIp, type IpVersion } from "./ip";

export interface Interval {
  start: bigint;
  end: bigint;
}

/** One parsed address entry: an interval of one family and its canonical text. */
export interface AddressEntry extends Interval {
  version: IpVersion;
  text: string;
}

export type AddressListError = "invalid" | "rangeOrder" | "rangeFamily";
export type PortListError = "invalid" | "maxPort" | "rangeOrder";

export type ListResult<T, E> = { ok: true; entries: T[] } | { ok: false; error: E; entry: string };

const BITS: Record<IpVersion, number> = { 4: 32, 6: 128 };

function splitList(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** The shortest text of an interval of one family: an address, a network, or "start-end". */
export function intervalText(i: Interval, version: IpVersion): string {
  if (i.start === i.end) return formatIp(i.start, version);
  const cidr = exactCidr(i, version);
  if (cidr !== null) return `${formatIp(i.start, version)}/${cidr}`;
  return `${formatIp(i.start, version)}-${formatIp(i.end, version)}`;
}

/** The prefix length when the interval is exactly one network, else null. */
export function exactCidr(i: Interval, version: IpVersion): number | null {
  const size = i.end - i.start + 1n;
  if (size <= 0n || (size & (size - 1n)) !== 0n) return null;
  if ((i.start & (size - 1n)) !== 0n) return null;
  let hostBits = 0;
  for (let s = size; s > 1n; s >>= 1n) hostBits++;
  return BITS[version] - hostBits;
}

/** Parse one address entry (address, network or range). */
export function parseAddressEntry(raw: string): { ok: true; entry: AddressEntry } | { ok: false; error: AddressListError } {
  const s = raw.trim();
  const dash = s.indexOf("-");
  if (dash >= 0) {
    const a = parseIp(s.slice(0, dash).trim());
    const b = parseIp(s.slice(dash + 1).trim());
    if (!a || !b) return { ok: false, error: "invalid" };
    if (a.version !== b.version) return { ok: false, error: "rangeFamily" };
    if (a.value > b.value) return { ok: false, error: "rangeOrder" };
    const i = { start: a.value, end: b.value };
    return { ok: true, entry: { ...i, version: a.version, text: a.value === b.value ? formatIp(a.value, a.version) : `${formatIp(a.value, a.version)}-${formatIp(b.value, b.version)}` } };
  }
  const c = parseCidrOrIp(s);
  if (!c) return { ok: false, error: "invalid" };
  const i = { start: networkAddress(c), end: lastAddress(c) };
  const text = c.prefix === c.bits ? formatIp(c.addr, c.version) : `${formatIp(i.start, c.version)}/${c.prefix}`;
  return { ok: true, entry: { ...i, version: c.version, text } };
}

/** "192.0.2.0/24, 198.51.100.1-198.51.100.9" → entries; the first bad entry is reported. */
export function parseAddressList(text: string): ListResult<AddressEntry, AddressListError> {
  const entries: AddressEntry[] = [];
  for (const part of splitList(text)) {
    const r = parseAddressEntry(part);
    if (!r.ok) return { ok: false, error: r.error, entry: part };
    entries.push(r.entry);
  }
  return { ok: true, entries };
}

/** "22, 8000-9000" → port intervals; the first bad entry is reported. */
export function parsePortList(text: string): ListResult<Interval & { text: string }, PortListError> {
  const entries: (Interval & { text: string })[] = [];
  for (const part of splitList(text)) {
    const m = /^(\d{1,6})(?:\s*-\s*(\d{1,6}))?$/.exec(part);
    if (!m) return { ok: false, error: "invalid", entry: part };
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (a < 1 || b < 1) return { ok: false, error: "invalid", entry: part };
    if (a > 65535 || b > 65535) return { ok: false, error: "maxPort", entry: part };
    if (a > b) return { ok: false, error: "rangeOrder", entry: part };
    entries.push({ start: BigInt(a), end: BigInt(b), text: a === b ? String(a) : `${a}-${b}` });
  }
  return { ok: true, entries };
}

const cmp = (a: Interval, b: Interval) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0);

/** Sorted intervals with overlapping and adjacent ones merged. */
export function mergeIntervals(list: Interval[]): Interval[] {
  const sorted = list.map((i) => ({ start: i.start, end: i.end })).sort(cmp);
  const out: Interval[] = [];
  for (const i of sorted) {
    const last = out[out.length - 1];
    if (last && i.start <= last.end + 1n) {
      if (i.end > last.end) last.end = i.end;
    } else out.push(i);
  }
  return out;
}

/** `a` minus `b`; both merged (sorted, disjoint); the result is merged too. */
export function subtractIntervals(a: Interval[], b: Interval[]): Interval[] {
  const out: Interval[] = [];
  let j = 0;
  for (const x of a) {
    let start = x.start;
    while (j < b.length && b[j].end < start) j++;
    let k = j;
    while (k < b.length && b[k].start <= x.end) {
      if (b[k].start > start) out.push({ start, end: b[k].start - 1n });
      if (b[k].end + 1n > start) start = b[k].end + 1n;
      k++;
    }
    if (start <= x.end) out.push({ start, end: x.end });
  }
  return out;
}

/** `a` ∩ `b`; both merged; the result is merged too. */
export function intersectIntervals(a: Interval[], b: Interval[]): Interval[] {
  const out: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const start = a[i].start > b[j].start ? a[i].start : b[j].start;
    const end = a[i].end < b[j].end ? a[i].end : b[j].end;
    if (start <= end) out.push({ start, end });
    if (a[i].end < b[j].end) i++;
    else j++;
  }
  return out;
}

/** Whether `v` lies in one of the merged intervals (binary search). */
export function intervalsContain(list: Interval[], v: bigint): boolean {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (v < list[mid].start) hi = mid - 1;
    else if (v > list[mid].end) lo = mid + 1;
    else return true;
  }
  return false;
}

/** The fewest networks covering exactly the interval. */
export function intervalToCidrs(i: Interval, version: IpVersion): string[] {
  const bits = BITS[version];
  const out: string[] = [];
  let start = i.start;
  while (start <= i.end) {
    let size = 1n;
    let prefix = bits;
    while (prefix > 0 && (start & (size * 2n - 1n)) === 0n && start + size * 2n - 1n <= i.end) {
      size *= 2n;
      prefix--;
    }
    out.push(`${formatIp(start, version)}/${prefix}`);
    start += size;
  }
  return out;
}
