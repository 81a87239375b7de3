/**
 * Real WireGuard tunnels through the gateway agent, in network namespaces:
 *
 *   root ns          dgt-r-<s> 198.51.100.253/30    console: HTTP on loopback, gRPC on 198.51.100.253 only
 *                        │ veth
 *   dgt-gw-<s>       to-root 198.51.100.254/30, to-client 198.51.100.1/26, to-client2 198.51.100.65/26,
 *                    agent (gateway/index.ts) + wireguard-go wg-dgt-<s>: 203.0.113.1/24, port 51820
 *   dgt-client-<s>   to-gw 198.51.100.2/26                       wg-quick (wireguard-go), device A = 203.0.113.2,
 *                                                                later the CLI-configured network device = 203.0.113.10
 *   dgt-client2-<s>  to-gw 198.51.100.66/26, 198.51.100.0/26 via .65   wg-quick (wireguard-go), device B = 203.0.113.3
 *
 * The console↔gateway link is NOT on 192.0.2.0/24: on these machines the host's own eth0 is
 * 192.0.2.2/24 with its default gateway at 192.0.2.1, so putting 192.0.2.1 on a root-namespace
 * veth would take over the host's gateway. It uses the smallest possible root-namespace
 * footprint instead: one /30 at the top of 198.51.100.0/24 (checked unused before starting).
 *
 * Only documentation ranges; only namespaces and links named with this run's suffix; all
 * removed in afterAll and on process exit, checked with `ip netns list` at the end.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../setup/server";
import { generateKeyPair } from "../../lib/wireguard/keys";
import { buildFirewall } from "../../gateway/firewall";
import type { Api } from "./api";
import { agentHealth, consoleQuery, setUpRun, signInAdmin, spawnAgent, startConsole, stopAfterFirstFailure, stopAgent, tearDownRun, type ConsoleOptions } from "./harness";
import {
  gwPeers,
  ifindex,
  must,
  netTestsUnavailable,
  nsExec,
  nsMust,
  pingCommand,
  Resources,
  sleep,
  until,
  veth,
  wireguardGoPids,
} from "./netns";

const unavailable = netTestsUnavailable();
if (unavailable) console.log(`[net] skipping the WireGuard namespace tests: ${unavailable}`);

const root = process.cwd();
const sfx = randomBytes(2).toString("hex");
const NS = { gw: `dgt-gw-${sfx}`, client: `dgt-client-${sfx}`, client2: `dgt-client2-${sfx}` };
const IF = `wg-dgt-${sfx}`;
const ROOT_LINK = `dgt-r-${sfx}`;
const HEALTH_PORT = 9180;
const GW_HOST = "198.51.100.254";
const CONSOLE_HOST = "198.51.100.253";
const res = new Resources();

let tmp = "";
let server: RunningServer | null = null;
let serverOpts: ConsoleOptions;
let api: Api;
let agent: ChildProcess | null = null;
let agentExit: Promise<number | null> = Promise.resolve(null);
let agentLog = "";
let hooksLog = "";
let locationId = 0;
let agentToken = "";
const ping = pingCommand() ?? ["ping"];

/**
 * A ping running 5 times a second from `ns` until stop(); stop() answers how many were sent
 * and answered (iputils' summary line).
 */
function continuousPing(ns: string, dest: string) {
  const child = spawn("ip", ["netns", "exec", ns, ...ping, "-i", "0.2", "-W", "1", dest], { stdio: ["ignore", "pipe", "pipe"] });
  res.pids.add(child.pid!);
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c.toString("utf8")));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return {
    async stop(): Promise<{ sent: number; received: number }> {
      child.kill("SIGINT");
      await exited;
      res.pids.delete(child.pid!);
      const m = /(\d+) packets transmitted, (\d+) (?:packets )?received/.exec(out);
      if (!m) throw new Error(`no ping summary in: ${out.slice(-500)}`);
      return { sent: Number(m[1]), received: Number(m[2]) };
    },
  };
}

function log(msg: string) {
  console.log(`[net] ${msg}`);
}

const health = () => agentHealth(GW_HOST, HEALTH_PORT);

async function pingOk(ns: string, dest: string, count = 3): Promise<boolean> {
  const r = await nsExec(ns, ping[0], [...ping.slice(1), "-c", String(count), "-W", "2", dest], { timeoutMs: 20_000 });
  return r.code === 0;
}

const dbQuery = <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => consoleQuery<T>(server!, sql, params);

/** A device for a user, with a key pair made here; its wg-quick config brought up in `ns`. */
async function joinDevice(username: string, name: string, ns: string, ifname: string) {
  const keys = generateKeyPair();
  const t0 = performance.now();
  const created = await api.ok<{ device: { id: number }; configs: { network_id: number; address: string[] }[] }>("POST", `/device/${username}`, {
    name,
    wireguard_pubkey: keys.publicKey,
    description: null,
  });
  const answered = performance.now();
  await until(`peer ${name} on the gateway`, async () => (await gwPeers(NS.gw, IF)).has(keys.publicKey), 5000, 5);
  const addMs = performance.now() - answered;
  const text = await api.ok<string>("GET", `/network/${locationId}/device/${created.device.id}/config`, undefined, 200);
  expect(text).toContain("YOUR_PRIVATE_KEY");
  expect(text).not.toMatch(/^DNS/m);
  const file = join(tmp, `${ifname}.conf`);
  writeFileSync(file, text.replace("YOUR_PRIVATE_KEY", keys.privateKey), { mode: 0o600 });
  await nsMust(ns, "wg-quick", ["up", file], {
    env: { ...process.env, WG_QUICK_USERSPACE_IMPLEMENTATION: "wireguard-go", WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD: "1" },
  });
  log(`device ${name} (${created.configs[0]?.address.join(",")}) up in ${ns}; peer on the gateway ${addMs.toFixed(0)} ms after the API answered (${(answered - t0).toFixed(0)} ms API)`);
  return { id: created.device.id, ...keys, address: created.configs.find((c) => c.network_id === locationId)!.address[0] };
}

async function setUserActive(username: string, active: boolean) {
  const u = await api.ok<{ user: Record<string, unknown> } & Record<string, unknown>>("GET", `/user/${username}`, undefined, 200);
  const info = (u.user ?? u) as { username: string; first_name: string; last_name: string; email: string; phone: string | null };
  return api.request("PUT", `/user/${username}`, {
    username: info.username,
    first_name: info.first_name,
    last_name: info.last_name,
    email: info.email,
    phone: info.phone ?? null,
    is_active: active,
  });
}

function startAgent(token: string, grpcPort: number, extraEnv: Record<string, string> = {}) {
  const logFile = join(tmp, "agent.log");
  agentLog = logFile;
  const hook = (name: string) => `echo ${name} >> ${hooksLog}`;
  const { child, exited } = spawnAgent(res, {
    root,
    ns: NS.gw,
    logFile,
    token,
    grpcUrl: `http://${CONSOLE_HOST}:${grpcPort}`,
    ifname: IF,
    env: {
      DEFGUARD_STATS_PERIOD: "2",
      HEALTH_PORT: String(HEALTH_PORT),
      DEFGUARD_HOSTNAME: NS.gw,
      DEFGUARD_GATEWAY_NAME: "net-test",
      DEFGUARD_PRE_UP: hook("PRE_UP"),
      DEFGUARD_POST_UP: hook("POST_UP"),
      DEFGUARD_PRE_DOWN: hook("PRE_DOWN"),
      DEFGUARD_POST_DOWN: hook("POST_DOWN"),
      ...extraEnv,
    },
  });
  agent = child;
  agentExit = exited;
  return child;
}

describe.skipIf(unavailable !== null)("WireGuard tunnels through the gateway agent (network namespaces)", () => {
  let devA: Awaited<ReturnType<typeof joinDevice>>;
  let devB: Awaited<ReturnType<typeof joinDevice>>;
  let netKey = "";
  let wgPid = 0;
  let wgIfindex: number | null = null;
  // The steps build on each other: after a failure the rest are skipped, not failed again.
  stopAfterFirstFailure(() => agentLog, log);

  beforeAll(async () => {
    // Topology. The console handle changes when a test restarts it: the exit path stops the current one.
    tmp = await setUpRun(res, { root, tmpPrefix: "defguard-net-", namespaces: Object.values(NS), currentConsole: () => server, log });
    hooksLog = join(tmp, "hooks.log");
    await veth(res, { ns: null, name: ROOT_LINK, cidr: `${CONSOLE_HOST}/30` }, { ns: NS.gw, name: "to-root", cidr: `${GW_HOST}/30` }, ROOT_LINK, `dgt-t0-${sfx}`);
    await veth(res, { ns: NS.gw, name: "to-client", cidr: "198.51.100.1/26" }, { ns: NS.client, name: "to-gw", cidr: "198.51.100.2/26" }, `dgt-t1-${sfx}`, `dgt-t2-${sfx}`);
    await veth(res, { ns: NS.gw, name: "to-client2", cidr: "198.51.100.65/26" }, { ns: NS.client2, name: "to-gw", cidr: "198.51.100.66/26" }, `dgt-t3-${sfx}`, `dgt-t4-${sfx}`);
    await must("ip", ["-n", NS.client2, "route", "add", "198.51.100.0/26", "via", "198.51.100.65"]);
    // Forwarding between tunnel peers (for the firewall check).
    await nsMust(NS.gw, "sysctl", ["-q", "-w", "net.ipv4.ip_forward=1"]);

    // Console: HTTP on a free port (the test talks to it on localhost), gRPC only on the root end of the gateway's veth.
    ({ server, options: serverOpts } = await startConsole(root, tmp, CONSOLE_HOST));
    expect(server.adminPassword, "generated admin password in the console log").toBeTruthy();
    api = await signInAdmin(server);
  }, 20 * 60_000);

  afterAll(async () => {
    await stopAgent(agent, agentExit);
    await server?.stop().catch(() => {});
    await tearDownRun(res, log, Object.values(NS), sfx);
  }, 60_000);

  it("brings device A's tunnel up through the agent and pings the gateway", async () => {
    const loc = await api.ok<{ id: number }>("POST", "/network", {
      name: `dgt-${sfx}`,
      address: "203.0.113.1/24",
      endpoint: "198.51.100.1",
      port: 51820,
      allowed_ips: "203.0.113.0/24",
      dns: null,
      allowed_groups: [],
    });
    locationId = loc.id;
    for (const u of ["alice", "bob"]) {
      await api.ok("POST", "/user", { username: u, first_name: "Net", last_name: u, email: `${u}@example.com`, phone: null, password: null });
    }
    const { token } = await api.ok<{ token: string }>("GET", `/network/${locationId}/token`, undefined, 200);
    agentToken = token;
    startAgent(token, Number(serverOpts.env!.DEFGUARD_GRPC_PORT));
    await until("agent health 200", async () => (await health()) === 200, 30_000, 100).catch((e) => {
      throw new Error(`${e.message}\nagent log:\n${readFileSync(agentLog, "utf8").slice(-3000)}`);
    });
    const [pid] = wireguardGoPids(res, NS.gw, IF);
    expect(pid, "the agent's wireguard-go").toBeGreaterThan(0);
    wgPid = pid;
    wgIfindex = await ifindex(NS.gw, IF);
    expect(await nsMust(NS.gw, "ip", ["-o", "address", "show", "dev", IF])).toContain("203.0.113.1/24");
    expect((await nsMust(NS.gw, "wg", ["show", IF, "listen-port"])).trim()).toBe("51820");
    expect(readFileSync(hooksLog, "utf8").split("\n").filter(Boolean)).toEqual(["PRE_UP", "POST_UP"]);

    devA = await joinDevice("alice", "dev-a", NS.client, `wgc-a-${sfx}`);
    expect(devA.address).toBe("203.0.113.2");
    expect(await pingOk(NS.client, "203.0.113.1")).toBe(true);

    // Stats reach the console's database (period 2 s).
    const rows = await until(
      "device_stats rows for A",
      async () => {
        const r = await dbQuery<{ upload: string; download: string; endpoint: string | null }>("select upload, download, endpoint from device_stats where device_id = $1", [devA.id]);
        return r.length ? r : null;
      },
      15_000,
      500,
    );
    log(`stats for A: ${JSON.stringify(rows)}`);
    expect(rows[0].endpoint).toMatch(/^198\.51\.100\.2:\d+$/);
    expect(Number(rows[0].upload) + Number(rows[0].download)).toBeGreaterThan(0);
  });

  it("device B joins; the nft firewall built by the agent filters forwarding between peers", async () => {
    devB = await joinDevice("bob", "dev-b", NS.client2, `wgc-b-${sfx}`);
    expect(devB.address).toBe("203.0.113.3");
    expect(await pingOk(NS.client2, "203.0.113.1")).toBe(true);
    expect(await pingOk(NS.client, "203.0.113.3", 1)).toBe(true);

    // Default deny: A can no longer reach B through the gateway.
    const table = buildFirewall(IF, { default_policy: "DENY", rules: [] });
    await nsMust(NS.gw, "nft", ["-f", "-"], { input: table.script });
    expect(await pingOk(NS.client, "203.0.113.3", 1)).toBe(false);
    // An ALLOW rule for ICMP from A to B (with a TCP port that must not get in the way).
    const allow = buildFirewall(IF, {
      default_policy: "DENY",
      rules: [
        {
          id: 1,
          source_addrs: [{ address: "ip", ip: "203.0.113.2" }],
          destination_addrs: [{ address: "ip_subnet", ip_subnet: "203.0.113.3/32" }],
          destination_ports: [{ port: "single_port", single_port: 22 }],
          protocols: ["ICMP", "TCP"],
          verdict: "ALLOW",
          ip_version: "IPV4",
        },
      ],
    });
    await nsMust(NS.gw, "nft", ["-f", "-"], { input: allow.script });
    expect(await pingOk(NS.client, "203.0.113.3", 1)).toBe(true);
    // B → A is not allowed (only replies of A's pings are).
    expect(await pingOk(NS.client2, "203.0.113.2", 1)).toBe(false);
    await nsMust(NS.gw, "nft", ["delete", "table", "inet", `defguard_${IF.replace(/-/g, "_")}`]);
    expect(await pingOk(NS.client2, "203.0.113.2", 1)).toBe(true);
  });

  it("ACL through the API: a deployed rule reaches the agent's nft table, the explainer agrees, ACL off removes the table", async () => {
    const locBody = (acl: boolean) => ({
      name: `dgt-${sfx}`,
      address: "203.0.113.1/24",
      endpoint: "198.51.100.1",
      port: 51820,
      allowed_ips: "203.0.113.0/24",
      dns: null,
      allowed_groups: [],
      acl_enabled: acl,
      acl_default_allow: false,
    });
    const table = `defguard_${IF.replace(/-/g, "_")}`;
    const hasTable = async () => (await nsExec(NS.gw, "nft", ["list", "table", "inet", table], { timeoutMs: 10_000 })).code === 0;
    // ACL on, no rule yet: the default policy (deny) stops forwarding between peers.
    await api.ok("PUT", `/network/${locationId}`, locBody(true), 200);
    await until("the agent's firewall table", hasTable, 5000, 20);
    expect(await pingOk(NS.client, "203.0.113.3", 1)).toBe(false);

    const alice = await api.ok<{ user: { id: number } }>("GET", "/user/alice", undefined, 200);
    const rule = await api.ok<{ id: number; state: string }>("POST", "/acl/rule", {
      name: "a-to-b",
      networks: [locationId],
      allowed_users: [alice.user.id],
      destination: "203.0.113.3",
      protocols: [1],
    });
    expect(rule.state).toBe("new");
    expect(await pingOk(NS.client, "203.0.113.3", 1)).toBe(false); // pending: nothing changed
    await api.ok("PUT", "/acl/rule/apply", { rules: [rule.id] }, 200);
    await until("A reaches B under the deployed rule", () => pingOk(NS.client, "203.0.113.3", 1), 10_000, 200);
    expect(await pingOk(NS.client2, "203.0.113.2", 1)).toBe(false);
    const check = await api.ok<{ allowed: boolean; rule: { id: number } | null }>("GET", `/acl/check?location=${locationId}&user=alice&destination=203.0.113.3&protocol=1`, undefined, 200);
    expect(check).toMatchObject({ allowed: true, rule: { id: rule.id } });
    const back = await api.ok<{ allowed: boolean }>("GET", `/acl/check?location=${locationId}&user=bob&destination=203.0.113.2&protocol=1`, undefined, 200);
    expect(back.allowed).toBe(false);

    // ACL off: the gateway removes its table and forwarding is unfiltered again.
    await api.ok("PUT", `/network/${locationId}`, locBody(false), 200);
    await until("the table removed", async () => !(await hasTable()), 5000, 20);
    expect(await pingOk(NS.client2, "203.0.113.2", 1)).toBe(true);
    await api.request("DELETE", `/acl/rule/${rule.id}`);
  });

  it("deleting device A removes only A's peer: B's session, the interface and wireguard-go are untouched", async () => {
    const before = (await gwPeers(NS.gw, IF)).get(devB.publicKey)!;
    expect(before.handshake).toBeGreaterThan(0);
    // Make a later handshake visible (timestamps are in seconds).
    await sleep(1100);
    await api.ok("DELETE", `/device/${devA.id}`, undefined, 200);
    await until("A's peer removed", async () => !(await gwPeers(NS.gw, IF)).has(devA.publicKey), 5000, 10);
    expect(await pingOk(NS.client2, "203.0.113.1")).toBe(true);
    const after = (await gwPeers(NS.gw, IF)).get(devB.publicKey)!;
    expect(after.handshake, "B's latest handshake (a new one would mean its session was dropped)").toBe(before.handshake);
    expect(after.rx).toBeGreaterThan(before.rx);
    expect(wireguardGoPids(res, NS.gw, IF)).toEqual([wgPid]);
    expect(await ifindex(NS.gw, IF)).toBe(wgIfindex);
    expect(await pingOk(NS.client, "203.0.113.1", 1)).toBe(false);
  });

  it("disabling B's owner removes B's peer from the gateway within 1 second", async () => {
    const t0 = performance.now();
    const r = await setUserActive("bob", false);
    const answered = performance.now();
    expect(r.status, await r.text()).toBe(200);
    await until("B's peer removed", async () => !(await gwPeers(NS.gw, IF)).has(devB.publicKey), 5000, 5);
    const gone = performance.now();
    log(`disable → peer removed: ${(gone - answered).toFixed(0)} ms after the API answered (${(gone - t0).toFixed(0)} ms from the request)`);
    expect(gone - answered).toBeLessThan(1000);
    expect(await pingOk(NS.client2, "203.0.113.1", 1)).toBe(false);
  });

  it("a network device configured the defguard CLI way (start_cli, then dg's two calls) gets its peer and a working tunnel", async () => {
    const peersBefore = [...(await gwPeers(NS.gw, IF)).keys()].sort();
    const cli = await api.ok<{ enrollment_token: string; enrollment_url: string }>("POST", "/device/network/start_cli", {
      name: "router-c",
      description: "set up with dg",
      location_id: locationId,
      assigned_ips: ["203.0.113.10"],
    });
    // Without a key the device is no peer (a CREATE would have arrived within milliseconds).
    await sleep(500);
    expect([...(await gwPeers(NS.gw, IF)).keys()].sort(), "no peer while the device has no key").toEqual(peersBefore);
    // What `dg -u URL -t TOKEN` does: its own cookie jar, no console session.
    const start = await fetch(`${cli.enrollment_url}/api/v1/enrollment/start`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: cli.enrollment_token }),
    });
    expect(start.status, await start.clone().text()).toBe(200);
    const cookie = start.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    const keys = generateKeyPair();
    const t0 = performance.now();
    const created = await fetch(`${cli.enrollment_url}/api/v1/enrollment/create_device`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie },
      body: JSON.stringify({ name: "", pubkey: keys.publicKey, token: null }),
    });
    const body = (await created.json()) as { configs: { network_id: number; config: string; assigned_ip: string; endpoint: string }[] };
    expect(created.status, JSON.stringify(body)).toBe(200);
    const answered = performance.now();
    await until("the network device's peer on the gateway", async () => (await gwPeers(NS.gw, IF)).has(keys.publicKey), 5000, 5);
    netKey = keys.publicKey;
    log(`network device peer on the gateway ${(performance.now() - answered).toFixed(0)} ms after create_device answered (${(answered - t0).toFixed(0)} ms call)`);
    const conf = body.configs.find((c) => c.network_id === locationId)!;
    expect(conf).toMatchObject({ assigned_ip: "203.0.113.10", endpoint: "198.51.100.1:51820" });

    // Bring it up in A's namespace in place of A's (deleted) tunnel.
    await nsMust(NS.client, "wg-quick", ["down", join(tmp, `wgc-a-${sfx}.conf`)], {
      env: { ...process.env, WG_QUICK_USERSPACE_IMPLEMENTATION: "wireguard-go", WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD: "1" },
    });
    const file = join(tmp, `wgc-n-${sfx}.conf`);
    writeFileSync(file, conf.config.replace("YOUR_PRIVATE_KEY", keys.privateKey), { mode: 0o600 });
    await nsMust(NS.client, "wg-quick", ["up", file], {
      env: { ...process.env, WG_QUICK_USERSPACE_IMPLEMENTATION: "wireguard-go", WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD: "1" },
    });
    expect(await pingOk(NS.client, "203.0.113.1")).toBe(true);
  });

  it("reconnects after a console restart and converges without recreating the interface", async () => {
    // Drift while the console is away: a stray peer appears on the gateway.
    const stray = generateKeyPair().publicKey;
    await nsMust(NS.gw, "wg", ["set", IF, "peer", stray, "allowed-ips", "203.0.113.250/32"]);
    // The network device in A's namespace pings the gateway through the whole restart.
    const pinging = continuousPing(NS.client, "203.0.113.1");
    await sleep(1000);
    await server!.stop();
    await until("agent health 503", async () => (await health()) === 503, 20_000, 100);
    expect(wireguardGoPids(res, NS.gw, IF)).toEqual([wgPid]);

    // Same data directory and ports; a log file of its own (the embedded PostgreSQL port is parsed from it).
    server = await startServer({ ...serverOpts, logFile: join(tmp, "console-2.log") });
    const t0 = performance.now();
    await until("agent health 200 again", async () => (await health()) === 200, 60_000, 100);
    log(`agent reconnected ${((performance.now() - t0) / 1000).toFixed(1)} s after the console was healthy again`);
    const gws = await api.ok<Record<string, { hostname: string; connected: boolean; name: string | null }[]>>("GET", "/network/gateways", undefined, 200);
    expect(gws[String(locationId)]).toEqual(expect.arrayContaining([expect.objectContaining({ hostname: NS.gw, connected: true, name: "net-test" })]));
    await until("stray peer removed", async () => !(await gwPeers(NS.gw, IF)).has(stray), 5000, 50);
    expect((await gwPeers(NS.gw, IF)).has(netKey), "the CLI-configured network device is in the full config after the re-sync").toBe(true);
    await sleep(1000);
    const across = await pinging.stop();
    log(`pings across the console restart: ${across.received}/${across.sent} answered`);
    expect(across.sent).toBeGreaterThan(10);
    expect(across.received, "no ping lost while the console restarted").toBe(across.sent);
    // Its owner (the admin) is untouched by bob's disable/enable; its tunnel still works.
    expect(await pingOk(NS.client, "203.0.113.1", 1)).toBe(true);
    expect(wireguardGoPids(res, NS.gw, IF)).toEqual([wgPid]);
    expect(await ifindex(NS.gw, IF)).toBe(wgIfindex);

    const r = await setUserActive("bob", true);
    expect(r.status, await r.text()).toBe(200);
    await until("B's peer back", async () => (await gwPeers(NS.gw, IF)).has(devB.publicKey), 5000, 10);
    // The re-created peer has no session: B's client notices and handshakes again on its own
    // timers (a retry every 5 s, or 15 s after its traffic stops being answered).
    const t1 = performance.now();
    await until("B pings again", () => pingOk(NS.client2, "203.0.113.1", 1), 45_000, 0);
    log(`B reached the gateway again ${((performance.now() - t1) / 1000).toFixed(1)} s after its peer was re-created`);
    const [{ n }] = await dbQuery<{ n: string }>("select count(*) n from device_stats where device_id = $1", [devB.id]);
    expect(Number(n)).toBeGreaterThan(0);
  });

  it("an agent restart (SIGTERM, start again) keeps the interface and wireguard-go: no ping lost", async () => {
    const pinging = continuousPing(NS.client, "203.0.113.1");
    await sleep(1000);
    const t0 = performance.now();
    agent!.kill("SIGTERM");
    const code = await Promise.race([agentExit, sleep(15_000).then(() => "timeout")]);
    expect(code).toBe(0);
    res.pids.delete(agent!.pid!);
    // Left running: same wireguard-go, same interface, no down hooks.
    expect(wireguardGoPids(res, NS.gw, IF)).toEqual([wgPid]);
    expect(await ifindex(NS.gw, IF)).toBe(wgIfindex);
    expect(readFileSync(hooksLog, "utf8").split("\n").filter(Boolean)).toEqual(["PRE_UP", "POST_UP"]);
    // The next agent (told to tear down when it stops, for the last step) adopts it.
    startAgent(agentToken, Number(serverOpts.env!.DEFGUARD_GRPC_PORT), { DEFGUARD_TEARDOWN_ON_EXIT: "1" });
    await until("the new agent's health 200", async () => (await health()) === 200, 30_000, 100);
    log(`agent restarted and connected in ${((performance.now() - t0) / 1000).toFixed(2)} s`);
    await until("the adoption in the agent log", async () => readFileSync(agentLog, "utf8").includes("already exists: adopting it"), 5000, 50);
    await sleep(1500);
    const across = await pinging.stop();
    log(`pings across the agent restart: ${across.received}/${across.sent} answered`);
    expect(across.sent).toBeGreaterThan(10);
    expect(across.received, "no ping lost while the agent restarted").toBe(across.sent);
    expect(wireguardGoPids(res, NS.gw, IF)).toEqual([wgPid]);
    expect(await ifindex(NS.gw, IF)).toBe(wgIfindex);
    expect((await gwPeers(NS.gw, IF)).has(netKey)).toBe(true);
    // Gateway-side peers carry no persistent keepalive (they have no endpoint to keep alive).
    const dump = await nsMust(NS.gw, "wg", ["show", IF, "persistent-keepalive"]);
    for (const line of dump.trim().split("\n").filter(Boolean)) expect(line.split("\t")[1], line).toBe("off");
  });

  it("SIGTERM with DEFGUARD_TEARDOWN_ON_EXIT=1: PRE_DOWN, interface and wireguard-go gone, POST_DOWN, exit 0", async () => {
    agent!.kill("SIGTERM");
    const code = await Promise.race([agentExit, sleep(15_000).then(() => "timeout")]);
    expect(code).toBe(0);
    res.pids.delete(agent!.pid!);
    expect(await ifindex(NS.gw, IF)).toBeNull();
    // The adopted wireguard-go is not the agent's child: it exits when its interface is deleted.
    await until("wireguard-go gone", async () => wireguardGoPids(res, NS.gw, IF).length === 0, 5000, 50);
    expect(readFileSync(hooksLog, "utf8").split("\n").filter(Boolean)).toEqual(["PRE_UP", "POST_UP", "PRE_DOWN", "POST_DOWN"]);
  });
});
