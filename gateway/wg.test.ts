import { describe, expect, it } from "vitest";
import { normalizePeer } from "./reconcile";
import { ARG_BYTES_PER_COMMAND, opsToCommands, parseDump, parseIpAddrJson, stateFromDump } from "./wg";

const K1 = "mRToDaBkIQ0WuiTwZv6TGo73q0Vpxee8HUUYN7T3PFw=";
const K2 = "72G0mwT2JUsx+wj6zlvVGpEU+a/HfBliNOh1BKyCmGo=";
const PSK = "N6EVcOiRl04izQQvME9NqKVGhSn2cwp+mXhIlLLleKE=";

const DUMP = [
  "+NyB0gm1+qDd/rRoEfxMW58k2Z5YYq4CG2mIDpIlDHg=\t4pJ24GGAjkL+f3qALLoGCrQuD3s6xtgEtgj2h6oxJGk=\t51820\toff",
  `${K1}\t${PSK}\t198.51.100.2:55054\t203.0.113.2/32,2001:db8::2/128\t1795363850\t564\t476\t25`,
  `${K2}\t(none)\t(none)\t(none)\t0\t0\t0\toff`,
  "",
].join("\n");

describe("parseDump", () => {
  it("reads the interface line and every peer", () => {
    const d = parseDump(DUMP);
    expect(d).toMatchObject({ privateKey: "+NyB0gm1+qDd/rRoEfxMW58k2Z5YYq4CG2mIDpIlDHg=", listenPort: 51820, fwmark: null });
    expect(d.peers).toEqual([
      { pubkey: K1, presharedKey: PSK, endpoint: "198.51.100.2:55054", allowedIps: ["203.0.113.2/32", "2001:db8::2/128"], latestHandshake: 1795363850, rx: 564, tx: 476, keepalive: 25 },
      { pubkey: K2, presharedKey: null, endpoint: null, allowedIps: [], latestHandshake: 0, rx: 0, tx: 0, keepalive: 0 },
    ]);
  });

  it("a fresh interface has no key", () => {
    expect(parseDump("(none)\t(none)\t0\toff\n")).toEqual({ privateKey: null, publicKey: null, listenPort: 0, fwmark: null, peers: [] });
  });

  it("rejects what is not a dump", () => {
    expect(() => parseDump("")).toThrow();
    expect(() => parseDump("interface: wg0\n")).toThrow();
    expect(() => parseDump(`${DUMP}bad\tline\n`)).toThrow();
  });

  it("becomes the same state as the configuration that produced it", () => {
    const s = stateFromDump(parseDump(DUMP), ["203.0.113.1/24"]);
    // Same peer, except the keepalive an older agent had set: the agent now turns it off.
    expect(s.peers.get(K1)).toEqual({ ...normalizePeer({ pubkey: K1, allowed_ips: ["2001:db8::2/128", "203.0.113.2/32"], preshared_key: PSK, keepalive_interval: 25 }), keepalive: 25 });
    expect(normalizePeer({ pubkey: K1, allowed_ips: [], keepalive_interval: 25 }).keepalive).toBe(0);
    expect(s.addresses).toEqual(["203.0.113.1/24"]);
  });
});

describe("parseIpAddrJson", () => {
  it("keeps global addresses, drops the kernel's link-local one", () => {
    const text = JSON.stringify([
      {
        ifindex: 7,
        ifname: "wg0",
        addr_info: [
          { family: "inet", local: "203.0.113.1", prefixlen: 24, scope: "global" },
          { family: "inet6", local: "fe80::27f8:3622:ffd3:d77c", prefixlen: 64, scope: "link" },
          { family: "inet6", local: "2001:db8::1", prefixlen: 64, scope: "global" },
        ],
      },
    ]);
    expect(parseIpAddrJson(text)).toEqual({ ifindex: 7, addresses: ["203.0.113.1/24", "2001:db8::1/64"] });
    expect(parseIpAddrJson("[]")).toEqual({ ifindex: null, addresses: [] });
  });
});

describe("opsToCommands", () => {
  const file = (n: number) => `/tmp/k${n}`;

  it("interface settings, addresses, then peers; keys only through files", () => {
    const cmds = opsToCommands(
      "wg0",
      [
        { op: "set-private-key", privateKey: "PRIV" },
        { op: "set-listen-port", port: 51820 },
        { op: "del-address", address: "203.0.113.1/25" },
        { op: "add-address", address: "203.0.113.1/24" },
        { op: "remove-peer", pubkey: K2 },
        { op: "upsert-peer", existed: false, peer: { pubkey: K1, allowedIps: ["203.0.113.2/32", "203.0.113.3/32"], presharedKey: PSK, keepalive: 25 } },
        { op: "upsert-peer", existed: true, peer: { pubkey: K2, allowedIps: [], presharedKey: null, keepalive: 0 } },
      ],
      file,
    );
    expect(cmds.map((c) => [c.cmd, ...c.args].join(" "))).toEqual([
      "wg set wg0 private-key /tmp/k0 listen-port 51820",
      "ip address del 203.0.113.1/25 dev wg0",
      "ip address add 203.0.113.1/24 dev wg0",
      `wg set wg0 peer ${K2} remove peer ${K1} preshared-key /tmp/k1 persistent-keepalive 25 allowed-ips 203.0.113.2/32,203.0.113.3/32 peer ${K2} preshared-key /dev/null persistent-keepalive off allowed-ips `,
    ]);
    expect([...cmds[0].files]).toEqual([["/tmp/k0", "PRIV"]]);
    expect([...cmds[3].files]).toEqual([["/tmp/k1", PSK]]);
    expect(cmds.flatMap((c) => c.args).some((a) => a === PSK || a === "PRIV")).toBe(false);
  });

  it("a new peer without PSK or keepalive gets only its allowed IPs", () => {
    const [c] = opsToCommands("wg0", [{ op: "upsert-peer", existed: false, peer: { pubkey: K1, allowedIps: ["203.0.113.2/32"], presharedKey: null, keepalive: 0 } }], file);
    expect(c.args).toEqual(["set", "wg0", "peer", K1, "allowed-ips", "203.0.113.2/32"]);
  });

  it("puts a batch of 5,000 peers (a bulk move) into one wg set", () => {
    const key = (i: number) => Buffer.alloc(32, i % 256).toString("base64").slice(0, 40) + String(i).padStart(4, "0");
    const ops = [
      ...Array.from({ length: 2500 }, (_, i) => ({ op: "remove-peer" as const, pubkey: key(i) })),
      ...Array.from({ length: 5000 }, (_, i) => ({
        op: "upsert-peer" as const,
        existed: false,
        peer: { pubkey: key(10_000 + i), allowedIps: [`2001:db8:a::${(i + 2).toString(16)}/128`], presharedKey: null, keepalive: 0 },
      })),
    ];
    const cmds = opsToCommands("wg0", ops, file);
    expect(cmds).toHaveLength(1);
    expect(cmds[0].args.filter((a) => a === "peer")).toHaveLength(7500);
    expect(cmds[0].args.join(" ").length).toBeLessThan(ARG_BYTES_PER_COMMAND);
  });

  it("splits a batch that passes the argument budget over several wg set commands, peer clauses whole, key files with their clause", () => {
    const ops = Array.from({ length: 10 }, (_, i) => ({
      op: "upsert-peer" as const,
      existed: false,
      peer: { pubkey: `k${i}`, allowedIps: ["203.0.113.2/32"], presharedKey: i % 3 === 0 ? PSK : null, keepalive: 0 },
    }));
    // Room for about three clauses per command.
    const cmds = opsToCommands("wg0", ops, file, 150);
    expect(cmds.length).toBeGreaterThan(2);
    expect(cmds.every((c) => c.args[0] === "set" && c.args[2] === "peer")).toBe(true);
    expect(cmds.flatMap((c) => c.args.filter((a) => a.startsWith("k")))).toEqual(ops.map((o) => o.peer.pubkey));
    for (const c of cmds) for (const f of c.files.keys()) expect(c.args).toContain(f);
    expect(cmds.reduce((n, c) => n + c.files.size, 0)).toBe(4);
    // A single clause larger than the budget still goes out (alone).
    expect(opsToCommands("wg0", ops.slice(0, 2), file, 10)).toHaveLength(2);
  });

  it("no ops, no commands", () => {
    expect(opsToCommands("wg0", [], file)).toEqual([]);
  });
});
