import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatCidr, formatIp, lastAddress, networkAddress, parseCidr, parseIp, type Cidr } from "../net/ip";
import { allocateMany, capacity, firstFree, isAssignable, parseCidrList } from "./ip";

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

/** A Set that counts membership lookups, to bound the work the allocator does. */
class CountingSet extends Set<bigint> {
  lookups = 0;
  override has(v: bigint): boolean {
    this.lookups++;
    return super.has(v);
  }
}

/** Reference implementation: enumerate every address of a (small) network. */
function bruteAssignable(c: Cidr): bigint[] {
  const out: bigint[] = [];
  for (let a = networkAddress(c); a <= lastAddress(c); a++) if (isAssignable(c, a)) out.push(a);
  return out;
}

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
/** A small IPv4 network (/24 … /32) with a random host part as its gateway. */
const smallV4 = fc
  .record({ addr: fc.integer({ min: 0, max: 0xffffffff }), prefix: fc.integer({ min: 24, max: 32 }) })
  .map(({ addr, prefix }) => v4Cidr(addr, prefix));
/** A small IPv6 network (/120 … /128). */
const smallV6 = fc
  .record({ addr: fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }), prefix: fc.integer({ min: 120, max: 128 }) })
  .map(({ addr, prefix }): Cidr => ({ version: 6, addr, prefix, bits: 128 }));
const smallNet = fc.oneof(smallV4, smallV6);
/** A network plus a random subset of its addresses (and some noise outside it) as `used`. */
const netWithUsed = smallNet.chain((c) => {
  const span = Number(lastAddress(c) - networkAddress(c));
  return fc
    .record({
      inside: fc.array(fc.integer({ min: 0, max: span }), { maxLength: span + 1 }),
      outside: fc.array(fc.bigInt({ min: 0n, max: (1n << BigInt(c.bits)) - 1n }), { maxLength: 5 }),
    })
    .map(({ inside, outside }) => ({
      c,
      used: new Set<bigint>([...inside.map((o) => networkAddress(c) + BigInt(o)), ...outside]),
    }));
});


describe("parseCidrList", () => {
  it("parseCidrList", () => {
    const ok = parseCidrList(" 10.1.0.1/24 ,fd00::1/64,, ");
    expect(ok.ok && ok.value.map(formatCidr)).toEqual(["10.1.0.1/24", "fd00::1/64"]);
    expect(parseCidrList("10.1.0.1/24, 10.2.0.1")).toEqual({ ok: false, error: "invalid address with netmask: 10.2.0.1" });
    expect(parseCidrList("bogus/8, 10.2.0.1")).toEqual({ ok: false, error: "invalid address with netmask: bogus/8" });
    expect(parseCidrList(" , ")).toEqual({ ok: false, error: "at least one address with netmask is required" });
    expect(parseCidrList("").ok).toBe(false);
  });
});

describe("capacity and isAssignable", () => {
  it.each([
    ["10.1.0.1/24", 253n], // 256 − network − broadcast − gateway
    ["10.1.0.0/24", 254n], // gateway written as the network address
    ["10.1.0.255/24", 254n], // gateway written as the broadcast address
    ["10.1.0.1/30", 1n],
    ["10.1.0.1/31", 0n],
    ["10.1.0.1/32", 0n],
    ["10.1.0.1/16", 65533n],
    ["fd00::1/64", (1n << 64n) - 2n], // no broadcast in IPv6
    ["fd00::1/127", 0n],
    ["fd00::/127", 1n],
    ["fd00::1/128", 0n],
    ["::/0", (1n << 128n) - 1n],
  ])("capacity(%s) = %s", (text, n) => {
    expect(capacity(cidr(text))).toBe(n);
  });

  it("isAssignable excludes network, broadcast, gateway and outsiders", () => {
    const c = cidr("10.1.0.1/24");
    expect(isAssignable(c, ip("10.1.0.0"))).toBe(false);
    expect(isAssignable(c, ip("10.1.0.1"))).toBe(false);
    expect(isAssignable(c, ip("10.1.0.2"))).toBe(true);
    expect(isAssignable(c, ip("10.1.0.254"))).toBe(true);
    expect(isAssignable(c, ip("10.1.0.255"))).toBe(false);
    expect(isAssignable(c, ip("10.1.1.2"))).toBe(false);
    const v6 = cidr("fd00::1/120");
    expect(isAssignable(v6, ip("fd00::"))).toBe(false);
    expect(isAssignable(v6, ip("fd00::1"))).toBe(false);
    expect(isAssignable(v6, ip("fd00::ff"))).toBe(true); // last v6 address is a normal host
  });

  it("capacity equals the brute-force count of assignable addresses", () => {
    fc.assert(
      fc.property(smallNet, (c) => {
        expect(capacity(c)).toBe(BigInt(bruteAssignable(c).length));
      }),
      { numRuns: 500 },
    );
  });
});

describe("firstFree", () => {
  it("examples", () => {
    const c = cidr("10.1.0.1/24");
    expect(firstFree(c, new Set())).toBe(ip("10.1.0.2"));
    expect(firstFree(c, new Set([ip("10.1.0.2"), ip("10.1.0.3")]))).toBe(ip("10.1.0.4"));
    expect(firstFree(cidr("10.1.0.5/24"), new Set())).toBe(ip("10.1.0.1"));
    expect(firstFree(cidr("10.1.0.1/30"), new Set())).toBe(ip("10.1.0.2"));
    expect(firstFree(cidr("10.1.0.1/30"), new Set([ip("10.1.0.2")]))).toBeNull();
    expect(firstFree(cidr("10.1.0.1/31"), new Set())).toBeNull();
    expect(firstFree(cidr("10.1.0.1/32"), new Set())).toBeNull();
    expect(firstFree(cidr("fd00::1/64"), new Set([ip("fd00::2")]))).toBe(ip("fd00::3"));
  });

  it("a full network gives null", () => {
    const c = cidr("10.1.0.1/24");
    const used = new Set(bruteAssignable(c));
    expect(firstFree(c, used)).toBeNull();
    expect(firstFree(c, used, ip("10.1.0.100"))).toBeNull();
    expect(allocateMany(c, used, 5)).toEqual([]);
  });

  it("is the smallest free assignable address (exhaustive check on small networks)", () => {
    fc.assert(
      fc.property(netWithUsed, ({ c, used }) => {
        const free = bruteAssignable(c).filter((a) => !used.has(a));
        const got = firstFree(c, used);
        expect(got).toBe(free[0] ?? null);
        if (got !== null) {
          expect(isAssignable(c, got)).toBe(true);
          expect(used.has(got)).toBe(false);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it("with a hint: first free at or after the hint, else wraps around", () => {
    fc.assert(
      fc.property(
        netWithUsed.chain(({ c, used }) =>
          fc
            .bigInt({ min: networkAddress(c) - 2n, max: lastAddress(c) + 2n })
            .map((hint) => ({ c, used, hint })),
        ),
        ({ c, used, hint }) => {
          const free = bruteAssignable(c).filter((a) => !used.has(a));
          const inRange = hint > networkAddress(c) && hint <= lastAddress(c);
          const expected = inRange ? (free.find((a) => a >= hint) ?? free[0] ?? null) : (free[0] ?? null);
          expect(firstFree(c, used, hint)).toBe(expected);
        },
      ),
      { numRuns: 1000 },
    );
  });

  // Speed is asserted through the number of `used` lookups (deterministic), plus loose
  // wall-clock bounds that only catch pathological slowness on a loaded machine.
  it("is fast: 10,000 used in a /16, and one by one allocation with a hint", () => {
    const c = cidr("10.20.0.1/16");
    const used = new CountingSet(allocateMany(c, new Set(), 10_000));
    expect(used.size).toBe(10_000);
    let t = performance.now();
    expect(firstFree(c, used)).toBe(ip("10.20.0.2") + 10_000n);
    expect(used.lookups).toBeLessThanOrEqual(10_001); // one lookup per visited address
    expect(performance.now() - t).toBeLessThan(250); // ~2 ms normally

    // allocating 10,000 devices one at a time, each call hinted with the previous result + 1
    t = performance.now();
    const grow = new CountingSet();
    let hint: bigint | undefined;
    for (let i = 0; i < 10_000; i++) {
      const a = firstFree(c, grow, hint)!;
      grow.add(a);
      hint = a + 1n;
    }
    expect(grow.lookups).toBe(10_000); // O(1) per allocation, not O(n)
    expect(performance.now() - t).toBeLessThan(1000);
    expect(new Set(grow)).toEqual(new Set(used));
  });

  it("does not walk a /64 (or ::/0)", () => {
    const c = cidr("fd00::1/64");
    const used = new CountingSet(allocateMany(c, new Set(), 1000));
    const t = performance.now();
    expect(firstFree(c, used)).toBe(ip("fd00::2") + 1000n);
    expect(firstFree(c, used, lastAddress(c))).toBe(lastAddress(c)); // hint at the very end
    expect(allocateMany(c, used, 5)).toEqual([1002n, 1003n, 1004n, 1005n, 1006n].map((o) => networkAddress(c) + o));
    expect(used.lookups).toBe(1001 + 1 + 1005);
    expect(firstFree(cidr("::/0"), new Set([1n, 2n]))).toBe(3n);
    expect(allocateMany(cidr("::1/0"), new Set(), 3)).toEqual([2n, 3n, 4n]);
    expect(performance.now() - t).toBeLessThan(500);
  });
});

describe("allocateMany", () => {
  it("examples", () => {
    const c = cidr("10.1.0.1/29"); // .0 network, .1 gateway, .7 broadcast → .2–.6
    expect(allocateMany(c, new Set([ip("10.1.0.3")]), 3).map((a) => formatIp(a, 4))).toEqual([
      "10.1.0.2",
      "10.1.0.4",
      "10.1.0.5",
    ]);
    expect(allocateMany(c, new Set(), 100)).toHaveLength(5);
    expect(allocateMany(c, new Set(), 0)).toEqual([]);
    expect(allocateMany(c, new Set(), -1)).toEqual([]);
    expect(allocateMany(c, new Set(), Number.NaN)).toEqual([]);
  });

  it("returns distinct ascending assignable unused addresses, exactly min(n, free)", () => {
    fc.assert(
      fc.property(netWithUsed, fc.integer({ min: 0, max: 600 }), ({ c, used }, n) => {
        const got = allocateMany(c, used, n);
        const usedAssignable = [...used].filter((a) => isAssignable(c, a)).length;
        const free = capacity(c) - BigInt(usedAssignable);
        expect(BigInt(got.length)).toBe(free < BigInt(n) ? free : BigInt(n));
        const bad = got.findIndex((a, i) => !isAssignable(c, a) || used.has(a) || (i > 0 && a <= got[i - 1]));
        expect(bad).toBe(-1);
        // and they are the lowest free ones
        expect(got).toEqual(bruteAssignable(c).filter((a) => !used.has(a)).slice(0, n));
      }),
      { numRuns: 1000 },
    );
  });

  it("bulk-allocates 10,000 addresses in a /16 quickly, skipping used ones", () => {
    const c = cidr("10.30.0.1/16");
    const used = new Set<bigint>();
    for (let i = 0; i < 10_000; i += 2) used.add(networkAddress(c) + 2n + BigInt(i));
    const counting = new CountingSet(used);
    const t = performance.now();
    const got = allocateMany(c, counting, 10_000);
    expect(performance.now() - t).toBeLessThan(1000); // ~10 ms normally
    expect(counting.lookups).toBe(15_000); // a single pass: 5,000 used + 10,000 taken
    expect(got).toHaveLength(10_000);
    expect(got.some((a) => used.has(a))).toBe(false);
  });
});
