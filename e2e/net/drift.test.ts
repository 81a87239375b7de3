/**
 * Drift through the real agent and wireguard-go, in a network namespace: a peer removed from the
 * interface behind the agent's back (`wg set <if> peer <key> remove`) is reported by the agent's
 * state report, shown as drifted (with the missing peer) while automatic repair is off, and put
 * back (sync state in_sync again) once it is on, and again with repair on from the start. The same
 * for the firewall with ACL on: the agent's nft table changed behind its back (`nft flush chain`,
 * one rule deleted by handle) is reported as drifted (firewall differs) and put back as it was.
 *
 *   root ns       dgt-dr-<s> 198.51.100.249/30     console: HTTP on loopback, gRPC on 198.51.100.249 only
 *                     │ veth
 *   dgt-dgw-<s>   to-root 198.51.100.250/30, agent + wireguard-go wg-dd-<s>: 203.0.113.1/24
 *
 * Like tunnel.test.ts (read its header): the console↔gateway link is a /30 near the top of
 * 198.51.100.0/24, never 192.0.2.0/24 (the host's own network). No client tunnels are needed:
 * peers are devices with keys made here. Run under `flock /tmp/dgt-net.lock`.
 */
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../setup/server";
import { generateKeyPair } from "../../lib/wireguard/keys";
import { firewallTableName } from "../../gateway/firewall";
import type { Api } from "./api";
import { setUpRun, signInAdmin, spawnAgent, startConsole, stopAfterFirstFailure, stopAgent, tearDownRun } from "./harness";
import { gwPeers, netTestsUnavailable, nsMust, Resources, sh, sleep, until, veth } from "./netns";

const unavailable = netTestsUnavailable();
if (unavailable) console.log(`[net] skipping the drift namespace test: ${unavailable}`);

const root = process.cwd();
const sfx = randomBytes(2).toString("hex");
const NS_GW = `dgt-dgw-${sfx}`;
const IF = `wg-dd-${sfx}`;
const ROOT_LINK = `dgt-dr-${sfx}`;
const GW_HOST = "198.51.100.250";
const CONSOLE_HOST = "198.51.100.249";
const REPORT_PERIOD_S = 2;
const res = new Resources();

let tmp = "";
let server: RunningServer | null = null;
let api: Api;
let agent: ChildProcess | null = null;
let agentExit: Promise<number | null> = Promise.resolve(null);
let agentLog = "";
let locationId = 0;
let locationBody: Record<string, unknown> = {};

const log = (msg: string) => console.log(`[net] ${msg}`);

interface GatewayRow {
  hostname: string;
  expected_revision: number;
  applied_revision: number | null;
  sync_state: string;
  drifted_since: string | null;
  drift: { missing: string[]; missing_count: number; unexpected_count: number; allowed_ips_count: number; firewall: boolean } | null;
}

const ourGateway = async () => (await api.ok<GatewayRow[]>("GET", `/network/${locationId}/gateways`, undefined, 200)).find((g) => g.hostname === NS_GW) ?? null;
const setAutoRepair = (on: boolean) => api.ok("PUT", `/network/${locationId}/gateways/sync`, { auto_repair: on, propagation_alert_ms: 1000 }, 200);

describe.skipIf(unavailable !== null)("drift: a peer removed behind the agent's back (network namespace)", () => {
  const keys = [generateKeyPair().publicKey, generateKeyPair().publicKey];
  stopAfterFirstFailure(() => agentLog, log);

  beforeAll(async () => {
    tmp = await setUpRun(res, { root, tmpPrefix: "defguard-net-drift-", namespaces: [NS_GW], currentConsole: () => server, log });
    await veth(res, { ns: null, name: ROOT_LINK, cidr: `${CONSOLE_HOST}/30` }, { ns: NS_GW, name: "to-root", cidr: `${GW_HOST}/30` }, ROOT_LINK, `dgt-dt0-${sfx}`);
    let grpcPort: number;
    ({ server, grpcPort } = await startConsole(root, tmp, CONSOLE_HOST));
    api = await signInAdmin(server);

    locationBody = {
      name: `dgt-drift-${sfx}`,
      address: "203.0.113.1/24",
      endpoint: "198.51.100.1",
      port: 51820,
      allowed_ips: "203.0.113.0/24",
      dns: null,
      allowed_groups: [],
    };
    const loc = await api.ok<{ id: number }>("POST", "/network", locationBody);
    locationId = loc.id;
    await api.ok("POST", "/user", { username: "drifter", first_name: "Net", last_name: "Drift", email: "drifter@example.com", phone: null, password: null });
    for (const [i, k] of keys.entries()) await api.ok("POST", "/device/drifter", { name: `dev-${i}`, wireguard_pubkey: k, description: null });

    const { token } = await api.ok<{ token: string }>("GET", `/network/${locationId}/token`, undefined, 200);
    agentLog = join(tmp, "agent.log");
    ({ child: agent, exited: agentExit } = spawnAgent(res, {
      root,
      ns: NS_GW,
      logFile: agentLog,
      token,
      grpcUrl: `http://${CONSOLE_HOST}:${grpcPort}`,
      ifname: IF,
      env: {
        DEFGUARD_HOSTNAME: NS_GW,
        DEFGUARD_STATE_REPORT_PERIOD: String(REPORT_PERIOD_S),
        DEFGUARD_TEARDOWN_ON_EXIT: "1",
      },
    }));
  }, 20 * 60_000);

  afterAll(async () => {
    await stopAgent(agent, agentExit);
    await server?.stop().catch(() => {});
    await tearDownRun(res, log, [NS_GW], sfx);
  }, 60_000);

  it("the agent applies the configuration and acknowledges it: in_sync", async () => {
    await until("both peers on the gateway", async () => {
      const p = await gwPeers(NS_GW, IF).catch(() => new Map());
      return keys.every((k) => p.has(k));
    }, 30_000, 100);
    const g = await until("in_sync", async () => {
      const x = await ourGateway();
      return x?.sync_state === "in_sync" ? x : null;
    }, 15_000, 200);
    expect(g.applied_revision).toBe(g.expected_revision);
  });

  it("with repair off, a peer removed with `wg set … remove` is reported as drifted, naming the peer", async () => {
    await setAutoRepair(false);
    await nsMust(NS_GW, "wg", ["set", IF, "peer", keys[0], "remove"]);
    const t0 = performance.now();
    const g = await until("drifted", async () => {
      const x = await ourGateway();
      return x?.sync_state === "drifted" ? x : null;
    }, (REPORT_PERIOD_S + 10) * 1000, 200);
    log(`drift reported ${(performance.now() - t0).toFixed(0)} ms after the removal (report period ${REPORT_PERIOD_S} s)`);
    expect(g.drift).toMatchObject({ missing: [keys[0]], missing_count: 1 });
    expect(g.drifted_since).not.toBeNull();
    // Nothing repaired it meanwhile.
    await sleep(REPORT_PERIOD_S * 1000 + 500);
    expect((await gwPeers(NS_GW, IF)).has(keys[0])).toBe(false);
    expect((await ourGateway())?.sync_state).toBe("drifted");
  });

  it("turning repair on puts the peer back and the gateway is in sync again", async () => {
    const t0 = performance.now();
    await setAutoRepair(true);
    await until("peer back", async () => (await gwPeers(NS_GW, IF)).has(keys[0]), 60_000, 100);
    const back = performance.now() - t0;
    await until("in_sync after repair", async () => (await ourGateway())?.sync_state === "in_sync", (REPORT_PERIOD_S + 10) * 1000, 200);
    log(`repair: peer back ${back.toFixed(0)} ms after repair was turned on; in sync after ${(performance.now() - t0).toFixed(0)} ms`);
  });

  it("with repair on, a removed peer comes back without anyone asking", async () => {
    await nsMust(NS_GW, "wg", ["set", IF, "peer", keys[1], "remove"]);
    const t0 = performance.now();
    await until("peer back", async () => (await gwPeers(NS_GW, IF)).has(keys[1]), 120_000, 100);
    log(`automatic repair: peer back ${(performance.now() - t0).toFixed(0)} ms after the removal (report period ${REPORT_PERIOD_S} s)`);
    await until("in_sync", async () => (await ourGateway())?.sync_state === "in_sync", (REPORT_PERIOD_S + 10) * 1000, 200);
  });

  it("changes are acknowledged by the real agent: commit-to-acknowledgement p50/p95 on the overview", async () => {
    for (let i = 0; i < 5; i++) {
      const k = generateKeyPair().publicKey;
      await api.ok("POST", "/device/drifter", { name: `extra-${i}`, wireguard_pubkey: k, description: null });
      await until(`extra peer ${i}`, async () => (await gwPeers(NS_GW, IF)).has(k), 10_000, 50);
      await until("acknowledged", async () => (await ourGateway())?.sync_state === "in_sync", 10_000, 50);
    }
    const sync = await api.ok<{ propagation: { samples: number; p50_ms: number; p95_ms: number; alert: boolean; threshold_ms: number } }>("GET", `/network/${locationId}/gateways/sync`, undefined, 200);
    log(`propagation through the agent (last hour): ${JSON.stringify(sync.propagation)}`);
    expect(sync.propagation.samples).toBeGreaterThanOrEqual(5);
    expect(sync.propagation.p95_ms).toBeGreaterThanOrEqual(sync.propagation.p50_ms);
    const metrics = await fetch(`${server!.baseURL}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(/defguard_gateway_ack_propagation_seconds_count \d+/);
  });

  describe("the firewall table (ACL on) changed behind the agent's back", () => {
    const TABLE = firewallTableName(IF);
    const nftTable = async () => {
      const r = await sh("ip", ["netns", "exec", NS_GW, "nft", "list", "table", "inet", TABLE]);
      return r.code === 0 ? r.stdout : null;
    };
    /** Rule handles of the forward chain (`nft -a`: "… # handle N"). */
    const forwardRuleHandles = async () => {
      const out = await nsMust(NS_GW, "nft", ["-a", "list", "chain", "inet", TABLE, "forward"]);
      return out
        .split("\n")
        .filter((l) => /# handle \d+/.test(l) && !/chain forward|type filter hook/.test(l))
        .map((l) => Number(/# handle (\d+)/.exec(l)![1]));
    };
    let applied = "";

    it("with ACL on and a rule deployed, the agent enforces the table and is in sync", async () => {
      await api.ok("PUT", `/network/${locationId}`, { ...locationBody, acl_enabled: true, acl_default_allow: false }, 200);
      const rule = await api.ok<{ id: number }>("POST", "/acl/rule", {
        name: `drift web ${sfx}`,
        networks: [locationId],
        allow_all_users: true,
        destination: "198.51.100.10",
        ports: "443",
        protocols: [6],
      });
      await api.ok("PUT", "/acl/rule/apply", { rules: [rule.id] }, 200);
      applied = await until("the table with the rule", async () => {
        const t = await nftTable();
        return t && /443/.test(t) && /198\.51\.100\.10/.test(t) ? t : null;
      }, 30_000, 100);
      await until("in_sync with the firewall", async () => {
        const g = await ourGateway();
        return g?.sync_state === "in_sync" && g.applied_revision === g.expected_revision;
      }, (REPORT_PERIOD_S + 15) * 1000, 200);
      expect((await forwardRuleHandles()).length).toBeGreaterThan(0);
    });

    it("with repair off, `nft flush chain` is reported as drifted (firewall differs, peers as they were) and left alone", async () => {
      await setAutoRepair(false);
      await nsMust(NS_GW, "nft", ["flush", "chain", "inet", TABLE, "forward"]);
      expect(await forwardRuleHandles()).toEqual([]);
      const t0 = performance.now();
      const g = await until("drifted", async () => {
        const x = await ourGateway();
        return x?.sync_state === "drifted" ? x : null;
      }, (REPORT_PERIOD_S + 10) * 1000, 200);
      log(`firewall drift reported ${(performance.now() - t0).toFixed(0)} ms after the flush (report period ${REPORT_PERIOD_S} s)`);
      expect(g.drift).toMatchObject({ firewall: true, missing_count: 0, unexpected_count: 0, allowed_ips_count: 0 });
      expect(g.drifted_since).not.toBeNull();
      await sleep(REPORT_PERIOD_S * 1000 + 500);
      expect(await forwardRuleHandles()).toEqual([]);
      expect((await ourGateway())?.sync_state).toBe("drifted");
    });

    it("turning repair on restores the table as it was applied, and the gateway is in sync again", async () => {
      const t0 = performance.now();
      await setAutoRepair(true);
      await until("table restored", async () => (await nftTable()) === applied, 60_000, 100);
      const back = performance.now() - t0;
      await until("in_sync after repair", async () => (await ourGateway())?.sync_state === "in_sync", (REPORT_PERIOD_S + 10) * 1000, 200);
      log(`firewall repair: table restored ${back.toFixed(0)} ms after repair was turned on; in sync after ${(performance.now() - t0).toFixed(0)} ms`);
    });

    it("with repair on, a rule deleted by handle comes back without anyone asking", async () => {
      const handles = await forwardRuleHandles();
      await nsMust(NS_GW, "nft", ["delete", "rule", "inet", TABLE, "forward", "handle", String(handles[handles.length - 1])]);
      expect(await nftTable()).not.toBe(applied);
      const t0 = performance.now();
      await until("table restored", async () => (await nftTable()) === applied, 120_000, 100);
      log(`automatic firewall repair: table restored ${(performance.now() - t0).toFixed(0)} ms after the rule was deleted (report period ${REPORT_PERIOD_S} s)`);
      await until("in_sync", async () => (await ourGateway())?.sync_state === "in_sync", (REPORT_PERIOD_S + 10) * 1000, 200);
    });
  });
});
