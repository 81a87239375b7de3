/**
 * InterfaceManager without root: an in-memory device, nft and hooks stubbed. Checks the
 * bring-up order (PRE_UP, create, settings, up, firewall, peers, POST_UP), that full configurations and
 * updates only run the ops that are needed, and the firewall life cycle.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";

const calls: string[] = [];
/** `nft list table` calls (kept apart from `calls`: they are read after the change) and what they answer. */
const listings: string[] = [];
let listing: string | null = null;
vi.mock("./wg", async (orig) => {
  const real = await orig<typeof import("./wg")>();
  return {
    ...real,
    nftApply: vi.fn(async (script: string) => void calls.push(`nft -f (${script.split("\n")[0]})`)),
    nftDeleteTable: vi.fn(async (family: string, table: string) => {
      calls.push(`nft delete table ${family} ${table}`);
      return true;
    }),
    runHook: vi.fn(async (name: string, cmd: string | null) => void (cmd && calls.push(`hook ${name}`))),
    nftListTable: vi.fn(async (family: string, table: string, handles?: boolean) => {
      listings.push(`${handles ? "-a " : ""}${family} ${table} (after ${calls.length} calls)`);
      return listing;
    }),
  };
});

const { InterfaceManager } = await import("./manager");
const { applyOps, emptyState } = await import("./reconcile");
type Op = import("./reconcile").Op;
type InterfaceState = import("./reconcile").InterfaceState;
type GatewayConfig = import("./config").GatewayConfig;

const key = (n: number) => Buffer.alloc(32, n).toString("base64");

class Device {
  readonly ifname = "wg-t";
  readonly pid = null;
  onUnexpectedExit: ((why: string) => void) | null = null;
  state: InterfaceState | null = null;
  async exists() {
    return this.state !== null;
  }
  async create() {
    calls.push("create");
    this.state = emptyState();
  }
  async destroy() {
    calls.push("destroy");
    this.state = null;
  }
  async setUp() {
    calls.push("up");
  }
  async dump() {
    return { privateKey: null, publicKey: null, listenPort: 0, fwmark: null, peers: [] };
  }
  async readState() {
    if (!this.state) throw new Error("gone");
    return applyOps(this.state, []);
  }
  async execute(ops: Op[]) {
    calls.push(ops.map((o) => (o.op === "upsert-peer" ? `+${o.peer.pubkey.slice(0, 4)}` : o.op === "remove-peer" ? `-${o.pubkey.slice(0, 4)}` : o.op)).join(","));
    this.state = applyOps(this.state!, ops);
  }
  release() {
    calls.push("release");
  }
  dispose() {}
}

const cfg = { preUp: "x", postUp: "x", preDown: "x", postDown: "x", userspace: true, firewall: true } as GatewayConfig;
const conf = (peers: number[], extra: Record<string, unknown> = {}) => ({
  name: "L",
  prvkey: key(200),
  port: 51820,
  addresses: ["203.0.113.1/24"],
  peers: peers.map((n) => ({ pubkey: key(n), allowed_ips: [`203.0.113.${n}/32`], keepalive_interval: 25 })),
  ...extra,
});
const FW = { default_policy: "DENY", rules: [{ id: 1, protocols: ["TCP"], verdict: "ALLOW" }] };

let device: Device;
let manager: InstanceType<typeof InterfaceManager>;
beforeEach(() => {
  calls.length = 0;
  listings.length = 0;
  listing = null;
  device = new Device();
  manager = new InterfaceManager(cfg, device, () => {});
});

describe("InterfaceManager", () => {
  it("brings the interface up in order and then only applies differences", async () => {
    await manager.applyConfiguration(conf([2, 3]));
    expect(calls).toEqual([
      "hook PRE_UP",
      "create",
      "set-private-key,set-listen-port,add-address",
      "up",
      // The firewall (here: none wanted) before the peers, so no peer meets a stale table.
      "nft delete table inet defguard_wg_t",
      `+${key(2).slice(0, 4)},+${key(3).slice(0, 4)}`,
      "hook POST_UP",
    ]);
    calls.length = 0;
    // The same configuration again (a reconnect): nothing but the idempotent `ip link set up`.
    await manager.applyConfiguration(conf([2, 3]));
    expect(calls).toEqual(["up"]);
    calls.length = 0;
    // A network MODIFY with another port and one peer less.
    await manager.applyConfiguration(conf([3], { port: 51821 }));
    expect(calls).toEqual(["set-listen-port", "up", `-${key(2).slice(0, 4)}`]);
  });

  it("peer updates: one op each, repeated ones cost nothing", async () => {
    await manager.applyConfiguration(conf([2]));
    calls.length = 0;
    const peer = { pubkey: key(4), allowed_ips: ["203.0.113.4/32"], keepalive_interval: 25 };
    await manager.applyUpdate({ update_type: "CREATE", update: "peer", peer });
    await manager.applyUpdate({ update_type: "CREATE", update: "peer", peer });
    await manager.applyUpdate({ update_type: "MODIFY", update: "peer", peer: { ...peer, allowed_ips: ["203.0.113.5/32"] } });
    await manager.applyUpdate({ update_type: "DELETE", update: "peer", peer: { pubkey: key(2), allowed_ips: [] } });
    await manager.applyUpdate({ update_type: "DELETE", update: "peer", peer: { pubkey: key(2), allowed_ips: [] } });
    expect(calls).toEqual([`+${key(4).slice(0, 4)}`, `+${key(4).slice(0, 4)}`, `-${key(2).slice(0, 4)}`]);
    expect(manager.peerCount).toBe(1);
  });

  it("firewall: applied from the configuration (first as a whole table, then incrementally), not re-applied when unchanged, removed when disabled", async () => {
    await manager.applyConfiguration(conf([], { firewall_config: FW }));
    expect(calls.filter((c) => c.startsWith("nft"))).toEqual(["nft -f (table inet defguard_wg_t)"]);
    calls.length = 0;
    await manager.applyConfiguration(conf([], { firewall_config: FW }));
    await manager.applyUpdate({ update_type: "MODIFY", update: "firewall_config", firewall_config: FW });
    expect(calls.filter((c) => c.startsWith("nft"))).toEqual([]);
    // Only the policy changed: one command on the chain, the rules stay.
    await manager.applyUpdate({ update_type: "MODIFY", update: "firewall_config", firewall_config: { ...FW, default_policy: "ALLOW" } });
    await manager.applyUpdate({ update_type: "MODIFY", update: "disable_firewall", disable_firewall: {} });
    await manager.applyConfiguration(conf([]));
    expect(calls.filter((c) => c.startsWith("nft"))).toEqual([
      "nft -f (chain inet defguard_wg_t forward { type filter hook forward priority filter; policy accept; })",
      "nft delete table inet defguard_wg_t",
    ]);
    expect(manager.counters).toMatchObject({ firewallWhole: 1, firewallIncremental: 1, firewallFallbacks: 0, firewallFailures: 0 });
    // After the table was deleted, the next one is a whole table again.
    calls.length = 0;
    await manager.applyUpdate({ update_type: "MODIFY", update: "firewall_config", firewall_config: FW });
    expect(calls).toEqual(["nft -f (table inet defguard_wg_t)"]);
    // So is the first one of another agent run (an adopted interface and table).
    const next = new InterfaceManager(cfg, device, () => {});
    calls.length = 0;
    await next.applyConfiguration(conf([], { firewall_config: FW }));
    expect(calls.filter((c) => c.startsWith("nft"))).toEqual(["nft -f (table inet defguard_wg_t)"]);
  });

  it("firewall: a failing incremental update falls back to the whole table", async () => {
    const { nftApply } = await import("./wg");
    const logs: string[] = [];
    manager = new InterfaceManager(cfg, device, (level, msg) => void logs.push(`${level}: ${msg}`));
    await manager.applyConfiguration(conf([], { firewall_config: FW }));
    calls.length = 0;
    vi.mocked(nftApply).mockRejectedValueOnce(new Error("nft -f - failed (1): Error: Could not process rule: No such file or directory"));
    const next = { ...FW, rules: [...FW.rules, { id: 2, protocols: ["UDP"], verdict: "ALLOW" }] };
    await manager.applyUpdate({ update_type: "MODIFY", update: "firewall_config", firewall_config: next });
    // The incremental script was tried (and rejected), then the whole table applied.
    expect(vi.mocked(nftApply).mock.calls.slice(-2).map(([s]) => s.split("\n")[0])).toEqual(["flush chain inet defguard_wg_t forward", "table inet defguard_wg_t"]);
    expect(vi.mocked(nftApply).mock.calls.at(-1)![0]).toContain("meta l4proto udp accept");
    expect(calls).toEqual(["nft -f (table inet defguard_wg_t)"]);
    expect(manager.counters).toMatchObject({ firewallWhole: 2, firewallIncremental: 0, firewallFallbacks: 1, firewallFailures: 0 });
    expect(logs.filter((l) => l.startsWith("warn"))).toEqual([
      "warn: incremental firewall update failed (nft -f - failed (1): Error: Could not process rule: No such file or directory); replacing the whole table inet defguard_wg_t",
    ]);
    expect(logs.filter((l) => l.startsWith("error"))).toEqual([]);
    // The whole table is now the base: the next change is incremental again.
    calls.length = 0;
    await manager.applyUpdate({ update_type: "MODIFY", update: "firewall_config", firewall_config: FW });
    expect(calls).toEqual(["nft -f (flush chain inet defguard_wg_t forward)"]);
    expect(manager.counters.firewallIncremental).toBe(1);
  });

  it("firewall: a failed apply is logged, keeps the last good table, does not fail the update, and is retried", async () => {
    const { nftApply } = await import("./wg");
    const logs: string[] = [];
    manager = new InterfaceManager(cfg, device, (level, msg) => void logs.push(`${level}: ${msg}`));
    await manager.applyConfiguration(conf([], { firewall_config: FW }));
    const bad = { ...FW, default_policy: "ALLOW" };
    // The incremental script fails, and so does the whole table after it.
    vi.mocked(nftApply).mockRejectedValueOnce(new Error("nft -f - failed (1): Error: Could not process rule"));
    vi.mocked(nftApply).mockRejectedValueOnce(new Error("nft -f - failed (1): Error: Could not process rule"));
    await expect(manager.applyUpdate({ update_type: "MODIFY", update: "firewall_config", firewall_config: bad })).resolves.toBeUndefined();
    expect(manager.counters.firewallFailures).toBe(1);
    expect(manager.counters.firewallFallbacks).toBe(1);
    expect(logs.filter((l) => l.startsWith("error"))).toEqual([
      "error: firewall update failed, the last good table stays in force (table inet defguard_wg_t): nft -f - failed (1): Error: Could not process rule",
    ]);
    calls.length = 0;
    // The same config again is tried again (it was never applied), against the last good table;
    // the good one would not be re-sent.
    await manager.applyUpdate({ update_type: "MODIFY", update: "firewall_config", firewall_config: bad });
    expect(calls.filter((c) => c.startsWith("nft"))).toEqual(["nft -f (chain inet defguard_wg_t forward { type filter hook forward priority filter; policy accept; })"]);
    // A failure before any table existed says so.
    const first = new InterfaceManager(cfg, new Device(), (level, msg) => void logs.push(`${level}: ${msg}`));
    vi.mocked(nftApply).mockRejectedValueOnce(new Error("nft: not found"));
    await first.applyConfiguration(conf([], { firewall_config: FW }));
    expect(logs.filter((l) => l.startsWith("error")).at(-1)).toContain("firewall update failed, no table was applied before");
  });

  it("firewall: the new table is listed after the configuration's peers, and its rule handles make the next update touch one rule", async () => {
    const { nftApply } = await import("./wg");
    listing = [
      "table inet defguard_wg_t { # handle 1",
      "\tchain forward { # handle 1",
      "\t\ttype filter hook forward priority filter; policy drop;",
      '\t\tiifname != "wg-t" accept # handle 2',
      "\t\tct state established,related accept # handle 3",
      "\t\tmeta l4proto tcp accept # handle 4",
      "\t}",
      "}",
      "",
    ].join("\n");
    await manager.applyConfiguration(conf([2], { firewall_config: FW }));
    await manager.whenIdle();
    // Table, then the peer, then (not holding the peer back) the listing.
    expect(calls.indexOf("nft -f (table inet defguard_wg_t)")).toBeLessThan(calls.indexOf(`+${key(2).slice(0, 4)}`));
    expect(listings).toEqual([`-a inet defguard_wg_t (after ${calls.length} calls)`]);
    await manager.applyUpdate({ update_type: "MODIFY", update: "firewall_config", firewall_config: { ...FW, rules: [{ id: 2, protocols: ["UDP"], verdict: "ALLOW" }, ...FW.rules] } });
    // A new first rule goes before the kept one, found by its handle.
    expect(vi.mocked(nftApply).mock.calls.at(-1)![0]).toBe("insert rule inet defguard_wg_t forward position 4 meta nfproto ipv4 meta l4proto udp accept\n");
    await manager.whenIdle();
    // A state report reads the live table and compares it with the listing after the last apply.
    listing = `${listing}# changed`;
    const state = await manager.liveState();
    expect(listings).toHaveLength(3); // after each apply once, and the report's own
    expect(state.firewall).toMatch(/^live:/); // the listing after the last apply was the unchanged one
  });

  it("shutdown by default leaves the interface and its firewall table running for the next agent", async () => {
    await manager.applyConfiguration(conf([2], { firewall_config: FW }));
    calls.length = 0;
    await manager.shutdown();
    expect(calls).toEqual(["release"]);
  });

  it("shutdown with teardown: PRE_DOWN, firewall table and interface removed, POST_DOWN", async () => {
    await manager.applyConfiguration(conf([2], { firewall_config: FW }));
    calls.length = 0;
    await manager.shutdown(true);
    expect(calls).toEqual(["hook PRE_DOWN", "nft delete table inet defguard_wg_t", "destroy", "hook POST_DOWN"]);
    expect(manager.isUp).toBe(false);
  });

  it("DEFGUARD_TEARDOWN_ON_EXIT decides the default", async () => {
    const tearing = new InterfaceManager({ ...cfg, teardownOnExit: true }, device, () => {});
    await tearing.applyConfiguration(conf([2]));
    calls.length = 0;
    await tearing.shutdown();
    expect(calls).toContain("destroy");
    expect(calls).not.toContain("release");
  });

  it("gateway-side peers get no persistent keepalive; an adopted one that has it is turned off", async () => {
    device.state = applyOps(emptyState(), [{ op: "upsert-peer", existed: false, peer: { pubkey: key(2), allowedIps: ["203.0.113.2/32"], presharedKey: null, keepalive: 25 } }]);
    await manager.applyConfiguration(conf([2, 3]));
    for (const p of device.state!.peers.values()) expect(p.keepalive, p.pubkey).toBe(0);
    expect(calls).toContain(`+${key(2).slice(0, 4)},+${key(3).slice(0, 4)}`);
  });

  it("an existing interface is adopted, not recreated (an agent restart keeps sessions)", async () => {
    device.state = applyOps(emptyState(), [{ op: "upsert-peer", existed: false, peer: { pubkey: key(2), allowedIps: ["203.0.113.2/32"], presharedKey: null, keepalive: 0 } }]);
    await manager.applyConfiguration(conf([2, 3]));
    expect(calls).not.toContain("create");
    expect(calls).not.toContain("hook PRE_UP");
    expect(calls).toContain(`+${key(3).slice(0, 4)}`);
    expect(calls).not.toContain(`+${key(2).slice(0, 4)}`);
  });
});
