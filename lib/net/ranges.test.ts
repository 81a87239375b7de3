import { describe, expect, it } from "vitest";
import { exactCidr, intersectIntervals, intervalText, intervalToCidrs, intervalsContain, mergeIntervals, parseAddressList, parsePortList, subtractIntervals } from "./ranges";
import { parseIp } from "./ip";

const ip = (t: string) => parseIp(t)!.value;
const iv = (a: string, b: string) => ({ start: ip(a), end: ip(b) });

describe("address lists", () => {
  it("parses addresses, networks (host bits cleared) and ranges of both families", () => {
    const r = parseAddressList(" 192.0.2.7/24, 198.51.100.10 - 198.51.100.20,2001:db8::1, 2001:DB8::/32, 203.0.113.5 ");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.entries.map((e) => e.text)).toEqual(["192.0.2.0/24", "198.51.100.10-198.51.100.20", "2001:db8::1", "2001:db8::/32", "203.0.113.5"]);
    expect(r.entries.map((e) => e.version)).toEqual([4, 4, 6, 6, 4]);
    expect(parseAddressList("").ok).toBe(true);
  });

  it("names the first bad entry and why", () => {
    expect(parseAddressList("192.0.2.1, 192.0.2.20-192.0.2.10")).toEqual({ ok: false, error: "rangeOrder", entry: "192.0.2.20-192.0.2.10" });
    expect(parseAddressList("192.0.2.1-2001:db8::1")).toEqual({ ok: false, error: "rangeFamily", entry: "192.0.2.1-2001:db8::1" });
    expect(parseAddressList("192.0.2.256")).toMatchObject({ ok: false, error: "invalid" });
    expect(parseAddressList("192.0.2.0/33")).toMatchObject({ ok: false, error: "invalid" });
    expect(parseAddressList("example.com")).toMatchObject({ ok: false, error: "invalid" });
    expect(parseAddressList("192.0.2.1-192.0.2.2-192.0.2.3")).toMatchObject({ ok: false, error: "invalid" });
  });
});

describe("port lists", () => {
  it("parses ports and ranges in 1-65535", () => {
    const r = parsePortList("22, 8000-9000,65535");
    expect(r.ok && r.entries.map((e) => e.text)).toEqual(["22", "8000-9000", "65535"]);
  });
  it("refuses 0, 70000, backwards ranges and text", () => {
    expect(parsePortList("0")).toMatchObject({ ok: false, error: "invalid" });
    expect(parsePortList("70000")).toMatchObject({ ok: false, error: "maxPort" });
    expect(parsePortList("1-65536")).toMatchObject({ ok: false, error: "maxPort" });
    expect(parsePortList("90-80")).toMatchObject({ ok: false, error: "rangeOrder", entry: "90-80" });
    expect(parsePortList("ssh")).toMatchObject({ ok: false, error: "invalid" });
  });
});

describe("interval arithmetic", () => {
  it("merges overlapping and adjacent intervals", () => {
    expect(mergeIntervals([iv("192.0.2.10", "192.0.2.20"), iv("192.0.2.0", "192.0.2.9"), iv("192.0.2.15", "192.0.2.30"), iv("192.0.2.40", "192.0.2.40")])).toEqual([iv("192.0.2.0", "192.0.2.30"), iv("192.0.2.40", "192.0.2.40")]);
  });
  it("subtracts and intersects", () => {
    const a = [iv("192.0.2.0", "192.0.2.255")];
    const b = [iv("192.0.2.10", "192.0.2.19"), iv("192.0.2.200", "192.0.2.255")];
    expect(subtractIntervals(a, b)).toEqual([iv("192.0.2.0", "192.0.2.9"), iv("192.0.2.20", "192.0.2.199")]);
    expect(intersectIntervals(a, b)).toEqual(b);
    expect(subtractIntervals(b, a)).toEqual([]);
  });
  it("finds values by binary search", () => {
    const l = mergeIntervals([iv("192.0.2.1", "192.0.2.1"), iv("192.0.2.5", "192.0.2.9")]);
    expect(intervalsContain(l, ip("192.0.2.7"))).toBe(true);
    expect(intervalsContain(l, ip("192.0.2.3"))).toBe(false);
  });
  it("writes an interval as an address, an exact network or a range; splits into the fewest networks", () => {
    expect(intervalText(iv("192.0.2.0", "192.0.2.255"), 4)).toBe("192.0.2.0/24");
    expect(intervalText(iv("192.0.2.1", "192.0.2.1"), 4)).toBe("192.0.2.1");
    expect(intervalText(iv("192.0.2.1", "192.0.2.4"), 4)).toBe("192.0.2.1-192.0.2.4");
    expect(intervalText({ start: 0n, end: (1n << 128n) - 1n }, 6)).toBe("::/0");
    expect(exactCidr(iv("192.0.2.4", "192.0.2.7"), 4)).toBe(30);
    expect(intervalToCidrs(iv("192.0.2.1", "192.0.2.6"), 4)).toEqual(["192.0.2.1/32", "192.0.2.2/31", "192.0.2.4/31", "192.0.2.6/32"]);
  });
});
