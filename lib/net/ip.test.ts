import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  canonicalAddress,
  canonicalRoute,
  cidrContains,
  cidrSize,
  cidrsOverlap,
  containsIp,
  formatCidr,
  formatIp,
  lastAddress,
  networkAddress,
  networkCidrText,
  parseCidr,
  parseCidrOrIp,
  parseIp,
  type Cidr,
  type IpVersion,
} from "./ip";

const ip = (text: string) => {
  const r = parseIp(text);
  if (!r) throw new Error(`bad test IP ${text}`);
  return r.value;
};
const cidr = (text: string) => {
  const c = parseCidr(text);
  if (!c) throw new Error(`bad test CIDR ${text}`);
  return c;
};
const v4Cidr = (addr: number, prefix: number): Cidr => ({ version: 4, addr: BigInt(addr), prefix, bits: 32 });

// Arbitraries --------------------------------------------------------------------------
const v4Value = fc.bigInt({ min: 0n, max: (1n << 32n) - 1n });
const v6Value = fc.oneof(
  fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }),
  // values with many zero groups, to exercise "::" placement
  fc.array(fc.constantFrom(0, 0, 0, 1, 0xffff, 0xdb8), { minLength: 8, maxLength: 8 }).map((gs) =>
    gs.reduce((acc, g) => (acc << 16n) | BigInt(g), 0n),
  ),
  fc.bigInt({ min: 0n, max: (1n << 32n) - 1n }).map((v) => (0xffffn << 32n) | v), // v4-mapped
);
/** Any network of either version, host part random. */
const anyCidr = fc.oneof(
  fc.record({ addr: v4Value, prefix: fc.integer({ min: 0, max: 32 }) }).map(({ addr, prefix }): Cidr => ({ version: 4, addr, prefix, bits: 32 })),
  fc.record({ addr: v6Value, prefix: fc.integer({ min: 0, max: 128 }) }).map(({ addr, prefix }): Cidr => ({ version: 6, addr, prefix, bits: 128 })),
);

describe("parseIp", () => {
  it.each([
    ["10.0.0.1", 4, 0x0a000001n],
    ["0.0.0.0", 4, 0n],
    ["255.255.255.255", 4, 0xffffffffn],
    ["fd00::1", 6, (0xfd00n << 112n) | 1n],
    ["::", 6, 0n],
    ["::1", 6, 1n],
    ["1::", 6, 1n << 112n],
    ["::ffff:1.2.3.4", 6, (0xffffn << 32n) | 0x01020304n],
    ["::1.2.3.4", 6, 0x01020304n],
    ["FD00:0000:0000:0000:0000:0000:0000:00AB", 6, (0xfd00n << 112n) | 0xabn],
    ["1:2:3:4:5:6:7::", 6, 0x0001000200030004000500060007_0000n],
    ["1:2:3:4:5:6:1.2.3.4", 6, 0x0001000200030004000500060102_0304n],
  ] as const)("accepts %s", (text, version, value) => {
    expect(parseIp(text)).toEqual({ version, value });
  });

  it.each([
    "",
    "010.0.0.1",
    "1.2.3.04",
    "256.0.0.1",
    "1.2.3",
    "1.2.3.4.5",
    "1.2.3.4 ",
    " 1.2.3.4",
    "1.2.3.-4",
    "+1.2.3.4",
    "1.2.3.4/32",
    "0x1.2.3.4",
    "fe80::1%eth0",
    "fe80::1%1",
    ":::",
    "1:::2",
    "1::2::3",
    ":1::2",
    "1::2:",
    "1:2:3:4:5:6:7:8:9",
    "1:2:3:4:5:6:7",
    "1::2:3:4:5:6:7:8",
    "12345::1",
    "g::1",
    "::1.2.3",
    "::01.2.3.4",
    "1.2.3.4::",
    "::1.2.3.4:5",
    "[::1]",
    "１.2.3.4", // full-width digit
  ])("rejects %j", (text) => {
    expect(parseIp(text)).toBeNull();
  });

  it("agrees with node:net isIP on random address-like strings (zone ids aside)", () => {
    const chars = fc.constantFrom(..."0123456789abcdefABCDEF:.".split(""), "::", "1.2.3.4", "ffff", "0");
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 16 }).map((a) => a.join("")), (s) => {
        expect(parseIp(s)?.version ?? 0).toBe(isIP(s));
      }),
      { numRuns: 5000 },
    );
  });
});

describe("formatIp", () => {
  it.each([
    ["2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"],
    ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"], // a single zero group is not compressed
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"], // first of equally long runs
    ["2001:0:0:1:0:0:0:1", "2001:0:0:1::1"], // the longest run
    ["2001:DB8::AbC", "2001:db8::abc"],
    ["0:0:0:0:0:0:0:0", "::"],
    ["0:0:0:0:0:0:0:1", "::1"],
    ["1:0:0:0:0:0:0:0", "1::"],
    ["::ffff:0102:0304", "::ffff:1.2.3.4"],
    ["::1.2.3.4", "::102:304"],
    ["1.2.3.4", "1.2.3.4"],
  ])("%s → %s", (input, out) => {
    const p = parseIp(input)!;
    expect(formatIp(p.value, p.version)).toBe(out);
  });

  it("rejects out-of-range values", () => {
    expect(() => formatIp(1n << 32n, 4)).toThrow(RangeError);
    expect(() => formatIp(-1n, 6)).toThrow(RangeError);
  });

  it("round-trips random values canonically", () => {
    const versioned = fc.oneof(
      v4Value.map((value) => ({ value, version: 4 as IpVersion })),
      v6Value.map((value) => ({ value, version: 6 as IpVersion })),
    );
    fc.assert(
      fc.property(versioned, ({ value, version }) => {
        const text = formatIp(value, version);
        expect(parseIp(text)).toEqual({ version, value });
        expect(formatIp(parseIp(text)!.value, version)).toBe(text);
        expect(text).toBe(text.toLowerCase());
        expect(text.match(/::/g)?.length ?? 0).toBeLessThanOrEqual(1);
      }),
      { numRuns: 3000 },
    );
  });

  it("matches the WHATWG URL serializer (RFC 5952 compression) for non-mapped IPv6", () => {
    fc.assert(
      fc.property(v6Value, (value) => {
        fc.pre(value >> 32n !== 0xffffn);
        const whatwg = new URL(`http://[${formatIp(value, 6)}]/`).hostname.slice(1, -1);
        expect(formatIp(value, 6)).toBe(whatwg);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("CIDR parsing and formatting", () => {
  it("parses with the host part kept", () => {
    expect(parseCidr("10.1.0.1/24")).toEqual({ version: 4, addr: ip("10.1.0.1"), prefix: 24, bits: 32 });
    expect(parseCidr("fd00::1/64")).toEqual({ version: 6, addr: ip("fd00::1"), prefix: 64, bits: 128 });
    expect(parseCidr("0.0.0.0/0")).toEqual({ version: 4, addr: 0n, prefix: 0, bits: 32 });
    expect(parseCidr("::/0")).toEqual({ version: 6, addr: 0n, prefix: 0, bits: 128 });
  });

  it.each(["10.1.0.1", "10.1.0.1/", "10.1.0.1/33", "fd00::1/129", "10.1.0.1/024", "10.1.0.1/-1", "10.1.0.1/2 4", "10.1.0.1/24/1", "/24", "10.1.0.1/ 24", "010.1.0.1/24"])(
    "parseCidr rejects %j",
    (text) => {
      expect(parseCidr(text)).toBeNull();
    },
  );

  it("parseCidrOrIp turns bare IPs into host routes", () => {
    expect(parseCidrOrIp("10.1.0.7")).toEqual({ version: 4, addr: ip("10.1.0.7"), prefix: 32, bits: 32 });
    expect(parseCidrOrIp("fd00::7")).toEqual({ version: 6, addr: ip("fd00::7"), prefix: 128, bits: 128 });
    expect(parseCidrOrIp("10.1.0.7/16")?.prefix).toBe(16);
    expect(parseCidrOrIp("10.1.0.7/")).toBeNull();
    expect(parseCidrOrIp("nope")).toBeNull();
  });

  it("formats as written and as a network", () => {
    const c = cidr("10.1.0.1/24");
    expect(formatCidr(c)).toBe("10.1.0.1/24");
    expect(networkCidrText(c)).toBe("10.1.0.0/24");
    expect(formatIp(networkAddress(c), 4)).toBe("10.1.0.0");
    expect(formatIp(lastAddress(c), 4)).toBe("10.1.0.255");
    const v6 = cidr("FD00:0:0:0::1/64");
    expect(formatCidr(v6)).toBe("fd00::1/64");
    expect(networkCidrText(v6)).toBe("fd00::/64");
    expect(formatIp(lastAddress(v6), 6)).toBe("fd00::ffff:ffff:ffff:ffff");
    expect(networkCidrText(cidr("1.2.3.4/0"))).toBe("0.0.0.0/0");
    expect(formatIp(lastAddress(cidr("1.2.3.4/32")), 4)).toBe("1.2.3.4");
  });
});

describe("containment and overlap", () => {
  it("containsIp", () => {
    const c = cidr("10.1.0.1/24");
    expect(containsIp(c, ip("10.1.0.0"), 4)).toBe(true);
    expect(containsIp(c, ip("10.1.0.255"), 4)).toBe(true);
    expect(containsIp(c, ip("10.1.1.0"), 4)).toBe(false);
    expect(containsIp(c, ip("10.1.0.5"), 6)).toBe(false); // same number, other version
    expect(containsIp(cidr("::/0"), ip("1.2.3.4"), 4)).toBe(false);
  });

  it("cidrsOverlap examples", () => {
    expect(cidrsOverlap(cidr("10.0.0.0/8"), cidr("10.200.0.1/16"))).toBe(true);
    expect(cidrsOverlap(cidr("10.1.0.0/24"), cidr("10.1.1.0/24"))).toBe(false);
    expect(cidrsOverlap(cidr("10.1.0.0/23"), cidr("10.1.1.0/24"))).toBe(true);
    expect(cidrsOverlap(cidr("0.0.0.0/0"), cidr("::/0"))).toBe(false);
    expect(cidrsOverlap(cidr("fd00::/64"), cidr("fd00:0:0:1::/64"))).toBe(false);
  });

  it("cidrsOverlap is symmetric and agrees with brute force on small v4 networks", () => {
    // networks inside 10.0.0.0/22 with prefixes /23../32, so collisions are frequent
    const net = fc
      .record({ off: fc.integer({ min: 0, max: 1023 }), prefix: fc.integer({ min: 23, max: 32 }) })
      .map(({ off, prefix }) => v4Cidr(0x0a000000 + off, prefix));
    fc.assert(
      fc.property(net, net, (a, b) => {
        let brute = false;
        for (let x = networkAddress(a); x <= lastAddress(a) && !brute; x++) brute = containsIp(b, x, 4);
        expect(cidrsOverlap(a, b)).toBe(brute);
        expect(cidrsOverlap(b, a)).toBe(brute);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("round trips and containment (properties)", () => {
  it("CIDR text round-trips: parse(format(c)) = c, and the network form parses to its own network", () => {
    fc.assert(
      fc.property(anyCidr, (c) => {
        expect(parseCidr(formatCidr(c))).toEqual(c);
        expect(parseCidrOrIp(formatCidr(c))).toEqual(c);
        const net = parseCidr(networkCidrText(c))!;
        expect(net).toEqual({ ...c, addr: networkAddress(c) });
        expect(networkCidrText(net)).toBe(networkCidrText(c));
        expect(canonicalAddress(formatCidr(c))).toBe(formatCidr(c));
        expect(canonicalRoute(formatCidr(c))).toBe(networkCidrText(c));
      }),
      { numRuns: 3000 },
    );
  });

  it("a network holds exactly the addresses between its network and last address", () => {
    fc.assert(
      fc.property(anyCidr, fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), (c, x) => {
        const first = networkAddress(c);
        const last = lastAddress(c);
        expect(last - first + 1n).toBe(cidrSize(c));
        expect(containsIp(c, c.addr, c.version)).toBe(true);
        expect(containsIp(c, first, c.version)).toBe(true);
        expect(containsIp(c, last, c.version)).toBe(true);
        if (first > 0n) expect(containsIp(c, first - 1n, c.version)).toBe(false);
        if (last < (1n << BigInt(c.bits)) - 1n) expect(containsIp(c, last + 1n, c.version)).toBe(false);
        const v = x & ((1n << BigInt(c.bits)) - 1n);
        // Same prefix bits ⇔ inside.
        const shift = BigInt(c.bits - c.prefix);
        expect(containsIp(c, v, c.version)).toBe(v >> shift === c.addr >> shift);
      }),
      { numRuns: 3000 },
    );
  });

  it("every subnet is contained in and overlaps its supernet; containment is one-way unless equal", () => {
    const pair = anyCidr.chain((outer) =>
      fc
        .record({ extra: fc.integer({ min: 0, max: outer.bits - outer.prefix }), host: fc.bigInt({ min: 0n, max: (1n << BigInt(outer.bits)) - 1n }) })
        .map(({ extra, host }) => {
          const span = cidrSize(outer) - 1n;
          const addr = networkAddress(outer) + (host & span);
          return { outer, inner: { ...outer, addr, prefix: outer.prefix + extra } as Cidr };
        }),
    );
    fc.assert(
      fc.property(pair, ({ outer, inner }) => {
        expect(cidrContains(outer, inner)).toBe(true);
        expect(cidrsOverlap(outer, inner)).toBe(true);
        expect(cidrContains(inner, outer)).toBe(inner.prefix === outer.prefix);
        expect(containsIp(outer, networkAddress(inner), inner.version) && containsIp(outer, lastAddress(inner), inner.version)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it("never across versions", () => {
    fc.assert(
      fc.property(anyCidr, anyCidr, (a, b) => {
        fc.pre(a.version !== b.version);
        expect(cidrsOverlap(a, b)).toBe(false);
        expect(cidrContains(a, b)).toBe(false);
        expect(containsIp(a, b.addr, b.version)).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("canonical forms for the gateway agent", () => {
  it("routes drop host bits, addresses keep them; blanks are ignored", () => {
    expect(canonicalRoute("10.1.0.7/24")).toBe("10.1.0.0/24");
    expect(canonicalRoute(" 203.0.113.2 ")).toBe("203.0.113.2/32");
    expect(canonicalRoute("2001:db8::7/64")).toBe("2001:db8::/64");
    expect(canonicalRoute("2001:DB8::0001")).toBe("2001:db8::1/128");
    expect(canonicalAddress("203.0.113.1/24")).toBe("203.0.113.1/24");
    expect(canonicalAddress("2001:DB8::0001/64")).toBe("2001:db8::1/64");
    expect(canonicalRoute("not an address")).toBe("not an address");
  });

  it("IPv4-mapped IPv6 reads the same whichever way it was written (as wg and ip print it)", () => {
    for (const text of ["::ffff:192.0.2.1/128", "::ffff:c000:201/128", "0:0:0:0:0:FFFF:C000:0201/128"]) {
      expect(canonicalRoute(text)).toBe("::ffff:192.0.2.1/128");
      expect(canonicalAddress(text)).toBe("::ffff:192.0.2.1/128");
    }
    expect(canonicalRoute("::ffff:192.0.2.77/120")).toBe("::ffff:192.0.2.0/120");
  });
});

describe("the module", () => {
  it("imports nothing, so the gateway agent can run it without the console", () => {
    const src = readFileSync(new URL("./ip.ts", import.meta.url), "utf8");
    expect(src).not.toMatch(/^\s*(import|export \{[^}]*\} from)\b/m);
    expect(src).not.toMatch(/\brequire\(|\bimport\(/);
  });
});
