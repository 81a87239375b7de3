import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  applyOps,
  desiredState,
  diff,
  emptyState,
  normalizePeer,
  peerOps,
  sameScalar,
  sameState,
  type InterfaceState,
  type Op,
  type PeerState,
} from "./reconcile";

// Keys: 32 bytes base64 like WireGuard's, drawn from a small pool so that states overlap.
const keyOf = (n: number) => Buffer.alloc(32, n + 1).toString("base64");
const PSK_A = Buffer.alloc(32, 200).toString("base64");
const PSK_B = Buffer.alloc(32, 201).toString("base64");

/** A state whose allowed IPs are unique across peers (what WireGuard guarantees). */
const stateArb: fc.Arbitrary<InterfaceState> = fc
  .record({
    privateKey: fc.option(fc.constantFrom(keyOf(90), keyOf(91)), { nil: null }),
    listenPort: fc.option(fc.constantFrom(51820, 51821), { nil: null }),
    addresses: fc.uniqueArray(fc.constantFrom("203.0.113.1/24", "203.0.113.129/25", "2001:db8::1/64"), { maxLength: 3 }),
    peers: fc.uniqueArray(
      fc.record({
        key: fc.integer({ min: 0, max: 11 }),
        ips: fc.uniqueArray(fc.integer({ min: 2, max: 40 }), { maxLength: 3 }),
        psk: fc.constantFrom(null, PSK_A, PSK_B),
        keepalive: fc.constantFrom(0, 25, 30),
      }),
      { selector: (p) => p.key, maxLength: 10 },
    ),
  })
  .map(({ privateKey, listenPort, addresses, peers }) => {
    const used = new Set<number>();
    const map = new Map<string, PeerState>();
    for (const p of peers) {
      const ips = p.ips.filter((i) => !used.has(i));
      ips.forEach((i) => used.add(i));
      const pubkey = keyOf(p.key);
      map.set(pubkey, { pubkey, allowedIps: ips.map((i) => `198.51.100.${i}/32`).sort(), presharedKey: p.psk, keepalive: p.keepalive });
    }
    return { privateKey, listenPort, addresses: [...addresses].sort(), peers: map };
  });

/** Desired states always carry a key and a port (the console always sends them). */
const desiredArb = stateArb.map((s) => ({ ...s, privateKey: s.privateKey ?? keyOf(92), listenPort: s.listenPort ?? 51822 }));

const peerTouched = (ops: Op[], key: string) =>
  ops.some((o) => (o.op === "upsert-peer" && o.peer.pubkey === key) || (o.op === "remove-peer" && o.pubkey === key));

describe("diff + applyOps", () => {
  it("applying the ops to the applied state yields the desired state", () => {
    fc.assert(
      fc.property(stateArb, desiredArb, (applied, desired) => {
        const ops = diff(applied, desired);
        expect(sameState(applyOps(applied, ops), desired)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it("peers that did not change produce no operation", () => {
    fc.assert(
      fc.property(stateArb, desiredArb, (applied, desired) => {
        const ops = diff(applied, desired);
        for (const [key, p] of desired.peers) {
          const cur = applied.peers.get(key);
          const unchanged =
            cur && cur.presharedKey === p.presharedKey && cur.keepalive === p.keepalive && cur.allowedIps.join() === p.allowedIps.join();
          if (unchanged) expect(peerTouched(ops, key)).toBe(false);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it("a state diffed against itself needs nothing, and the ops are idempotent", () => {
    fc.assert(
      fc.property(stateArb, desiredArb, (applied, desired) => {
        expect(diff(desired, desired)).toEqual([]);
        const after = applyOps(applied, diff(applied, desired));
        expect(diff(after, desired)).toEqual([]);
      }),
      { numRuns: 1000 },
    );
  });

  it("applyOps takes an upserted peer's addresses from whichever peers held them, as a scan of every peer would (any op sequence)", () => {
    /** The model written the obvious way: every upsert looks at every other peer. */
    const reference = (state: InterfaceState, ops: Op[]): Map<string, string[]> => {
      const peers = new Map([...state.peers].map(([k, p]) => [k, [...p.allowedIps]]));
      for (const o of ops) {
        if (o.op === "remove-peer") peers.delete(o.pubkey);
        if (o.op !== "upsert-peer") continue;
        const taken = new Set(o.peer.allowedIps);
        for (const [k, ips] of peers) if (k !== o.peer.pubkey) peers.set(k, ips.filter((ip) => !taken.has(ip)));
        peers.set(o.peer.pubkey, [...o.peer.allowedIps]);
      }
      return peers;
    };
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      fc.integer({ min: 0, max: 11 }).map((k): Op => ({ op: "remove-peer", pubkey: keyOf(k) })),
      fc
        .record({ k: fc.integer({ min: 0, max: 11 }), ips: fc.uniqueArray(fc.integer({ min: 2, max: 40 }), { maxLength: 4 }) })
        .map(({ k, ips }): Op => ({
          op: "upsert-peer",
          existed: false,
          peer: { pubkey: keyOf(k), allowedIps: ips.map((i) => `198.51.100.${i}/32`).sort(), presharedKey: null, keepalive: 0 },
        })),
    );
    fc.assert(
      fc.property(stateArb, fc.array(opArb, { maxLength: 30 }), (state, ops) => {
        const got = applyOps(state, ops);
        const want = reference(state, ops);
        expect([...got.peers.keys()]).toEqual([...want.keys()]);
        for (const [k, ips] of want) expect(got.peers.get(k)!.allowedIps, k).toEqual(ips);
      }),
      { numRuns: 500 },
    );
  });

  it("does not mutate its inputs", () => {
    fc.assert(
      fc.property(stateArb, desiredArb, (applied, desired) => {
        const before = JSON.stringify([...applied.peers.values()]);
        applyOps(applied, diff(applied, desired));
        expect(JSON.stringify([...applied.peers.values()])).toBe(before);
      }),
      { numRuns: 300 },
    );
  });

  it("only touches what changed: one peer's IPs, one removal, one addition", () => {
    const a = keyOf(1);
    const b = keyOf(2);
    const c = keyOf(3);
    const applied = desiredState({
      prvkey: keyOf(90),
      port: 51820,
      addresses: ["203.0.113.1/24"],
      peers: [
        { pubkey: a, allowed_ips: ["203.0.113.2/32"], keepalive_interval: 25 },
        { pubkey: b, allowed_ips: ["203.0.113.3/32"], keepalive_interval: 25 },
      ],
    });
    const desired = desiredState({
      prvkey: keyOf(90),
      port: 51820,
      addresses: ["203.0.113.1/24"],
      peers: [
        { pubkey: b, allowed_ips: ["203.0.113.3/32", "203.0.113.9/32"], keepalive_interval: 25 },
        { pubkey: c, allowed_ips: ["203.0.113.4/32"], keepalive_interval: 25 },
      ],
    });
    expect(diff(applied, desired)).toEqual([
      { op: "remove-peer", pubkey: a },
      // The clients' keepalive interval is not set on the gateway side (peers without endpoints).
      { op: "upsert-peer", existed: true, peer: { pubkey: b, allowedIps: ["203.0.113.3/32", "203.0.113.9/32"], presharedKey: null, keepalive: 0 } },
      { op: "upsert-peer", existed: false, peer: { pubkey: c, allowedIps: ["203.0.113.4/32"], presharedKey: null, keepalive: 0 } },
    ]);
  });

  it("changes the port, key and addresses only when they differ", () => {
    const base = { prvkey: keyOf(90), port: 51820, addresses: ["203.0.113.1/24"], peers: [] };
    const applied = desiredState(base);
    expect(diff(applied, desiredState(base))).toEqual([]);
    expect(diff(applied, desiredState({ ...base, port: 51821 }))).toEqual([{ op: "set-listen-port", port: 51821 }]);
    expect(diff(applied, desiredState({ ...base, prvkey: keyOf(91) }))).toEqual([{ op: "set-private-key", privateKey: keyOf(91) }]);
    expect(diff(applied, desiredState({ ...base, addresses: ["203.0.113.1/25"] }))).toEqual([
      { op: "del-address", address: "203.0.113.1/24" },
      { op: "add-address", address: "203.0.113.1/25" },
    ]);
    // A fresh interface gets everything.
    expect(diff(emptyState(), applied).map((o) => o.op)).toEqual(["set-private-key", "set-listen-port", "add-address"]);
  });

  it("compares private keys as clamped scalars and addresses/IPs in canonical form", () => {
    const raw = Buffer.alloc(32, 0xff);
    const clamped = Buffer.from(raw);
    clamped[0] &= 248;
    clamped[31] = (clamped[31] & 127) | 64;
    expect(sameScalar(raw.toString("base64"), clamped.toString("base64"))).toBe(true);
    expect(sameScalar(keyOf(1), keyOf(2))).toBe(false);
    const a = desiredState({ prvkey: raw.toString("base64"), port: 1, addresses: ["2001:DB8:0:0::1/64"], peers: [{ pubkey: keyOf(1), allowed_ips: ["2001:db8::0002/128", "10.0.0.7/24"] }] });
    const b = desiredState({ prvkey: clamped.toString("base64"), port: 1, addresses: ["2001:db8::1/64"], peers: [{ pubkey: keyOf(1), allowed_ips: ["10.0.0.0/24", "2001:db8::2/128"] }] });
    expect(diff(a, b)).toEqual([]);
  });
});

describe("peerOps (single updates)", () => {
  const k = keyOf(5);
  const peer = normalizePeer({ pubkey: k, allowed_ips: ["203.0.113.5/32"], keepalive_interval: 25 });

  it("CREATE of a new peer upserts it; a repeated CREATE/MODIFY with the same state is a no-op", () => {
    expect(peerOps(undefined, peer)).toEqual([{ op: "upsert-peer", peer, existed: false }]);
    expect(peerOps(peer, { ...peer, allowedIps: [...peer.allowedIps] })).toEqual([]);
  });

  it("MODIFY replaces; DELETE removes; DELETE of an unknown peer does nothing", () => {
    const moved = { ...peer, allowedIps: ["203.0.113.6/32"] };
    expect(peerOps(peer, moved)).toEqual([{ op: "upsert-peer", peer: moved, existed: true }]);
    expect(peerOps(peer, null)).toEqual([{ op: "remove-peer", pubkey: k }]);
    expect(peerOps(undefined, null)).toEqual([]);
  });

  it("normalises the wire peer: zero PSK is none, missing keepalive is off, IPs sorted and deduplicated", () => {
    expect(
      normalizePeer({ pubkey: ` ${k} `, allowed_ips: ["203.0.113.9/32", "203.0.113.5", "203.0.113.9/32"], preshared_key: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" }),
    ).toEqual({ pubkey: k, allowedIps: ["203.0.113.5/32", "203.0.113.9/32"], presharedKey: null, keepalive: 0 });
  });

  it("an allowed IP moved to another peer is taken from the first (WireGuard semantics)", () => {
    const other = normalizePeer({ pubkey: keyOf(6), allowed_ips: ["203.0.113.5/32"] });
    const state = applyOps(emptyState(), [{ op: "upsert-peer", peer, existed: false }]);
    const after = applyOps(state, peerOps(undefined, other));
    expect(after.peers.get(k)!.allowedIps).toEqual([]);
    expect(after.peers.get(keyOf(6))!.allowedIps).toEqual(["203.0.113.5/32"]);
  });
});
