/**
 * Access control enforced by the gateway agent, end to end (issue 13, point 7): TCP listeners
 * behind the gateway, WireGuard clients of two users, ACL rules deployed through the API, and
 * every observed connection outcome compared with `GET /acl/check`.
 *
 *   root ns        dgt-r-<s> 198.51.100.253/30           console (HTTP on loopback, gRPC here)
 *   dgt-gw-<s>     to-root 198.51.100.254/30, to-client 198.51.100.1/26, to-client2 198.51.100.65/26,
 *                  to-srv 198.51.100.129/26 + 2001:db8:5::1/64; the agent with wireguard-go
 *                  wg-dgt-<s>: 203.0.113.1/24 + 2001:db8:7::1/64 (the location has both families)
 *   dgt-client-<s> to-gw 198.51.100.2/26                 alice's device (alice is in group G)
 *   dgt-client2-<s> to-gw 198.51.100.66/26               bob's device (not in G)
 *   dgt-srv-<s>    to-gw 198.51.100.130-132/26, 2001:db8:5::2-4/64: one node process listening
 *                  on port A (8080) and B (9090), IPv4 and IPv6; each connection is answered
 *                  with the port's letter
 *
 * The three server address pairs keep rules apart: .130/::2 for the group rule (and the
 * expiring rule), .131/::3 for an IPv4-only rule, .132/::4 for an IPv6-only rule.
 *
 * A probe is one new TCP connection from a client namespace (bash /dev/tcp under `timeout`,
 * 3 s: a loaded machine can take a second to start bash; the latency loops use shorter ones)
 * that must read the listener's letter. Established connections are not what is measured: the
 * agent's table accepts established/related traffic, so a cut applies to new connections.
 * The expiry job runs every second here (DEFGUARD_ACL_EXPIRY_INTERVAL=1), and the agent reports
 * its state every 2 s (DEFGUARD_STATE_REPORT_PERIOD=2): after the incremental firewall updates
 * its digest must still match, and a rule deleted behind its back must be repaired.
 *
 * Same rules as tunnel.test.ts: only documentation ranges, only this run's namespaces and
 * links, all removed in afterAll and on exit. Run alone:
 *   flock /tmp/dgt-net.lock npx vitest run -c vitest.net.config.ts e2e/net/acl.test.ts
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { closeSync, openSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../setup/server";
import { generateKeyPair } from "../../lib/wireguard/keys";
import { firewallTableName } from "../../gateway/firewall";
import type { Api } from "./api";
import { setUpRun, signInAdmin, spawnAgent, startConsole, stopAfterFirstFailure, stopAgent, tearDownRun } from "./harness";
import { gwPeers, must, netTestsUnavailable, nsExec, nsMust, Resources, sleep, until, veth } from "./netns";

const unavailable = netTestsUnavailable() ?? (spawnSync("sh", ["-c", "command -v nft && command -v bash && command -v timeout"], { stdio: "ignore" }).status !== 0 ? "missing nft, bash or timeout" : null);
if (unavailable) console.log(`[net-acl] skipping the ACL network tests: ${unavailable}`);

const root = process.cwd();
const sfx = randomBytes(2).toString("hex");
const NS = { gw: `dgt-gw-${sfx}`, client: `dgt-client-${sfx}`, client2: `dgt-client2-${sfx}`, srv: `dgt-srv-${sfx}` };
const IF = `wg-dgt-${sfx}`;
const ROOT_LINK = `dgt-r-${sfx}`;
const HEALTH_PORT = 9180;
const GW_HOST = "198.51.100.254";
const CONSOLE_HOST = "198.51.100.253";
const PORT_A = 8080;
const PORT_B = 9090;
const EXPIRY_INTERVAL_S = 1;
/** Server addresses: [IPv4, IPv6] per purpose. */
const SRV = {
  group: ["198.51.100.130", "2001:db8:5::2"],
  v4rule: ["198.51.100.131", "2001:db8:5::3"],
  v6rule: ["198.51.100.132", "2001:db8:5::4"],
} as const;
const res = new Resources();

let tmp = "";
let server: RunningServer | null = null;
let api: Api;
let agent: ChildProcess | null = null;
let agentExit: Promise<number | null> = Promise.resolve(null);
let agentLog = "";
let locationId = 0;

const log = (msg: string) => console.log(`[net-acl] ${msg}`);

interface Client {
  user: string;
  ns: string;
  deviceId: number;
  addresses: string[];
}

/** A device for `user` in the location, its wg-quick config brought up in `ns`. */
async function joinDevice(user: string, ns: string, ifname: string): Promise<Client> {
  const keys = generateKeyPair();
  const created = await api.ok<{ device: { id: number }; configs: { network_id: number; address: string[] }[] }>("POST", `/device/${user}`, {
    name: `${user}-dev`,
    wireguard_pubkey: keys.publicKey,
    description: null,
  });
  await until(`${user}'s peer on the gateway`, async () => (await gwPeers(NS.gw, IF)).has(keys.publicKey), 5000, 10);
  const text = await api.ok<string>("GET", `/network/${locationId}/device/${created.device.id}/config`, undefined, 200);
  const file = join(tmp, `${ifname}.conf`);
  writeFileSync(file, text.replace("YOUR_PRIVATE_KEY", keys.privateKey), { mode: 0o600 });
  await nsMust(ns, "wg-quick", ["up", file], {
    env: { ...process.env, WG_QUICK_USERSPACE_IMPLEMENTATION: "wireguard-go", WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD: "1" },
  });
  const addresses = created.configs.find((c) => c.network_id === locationId)!.address;
  log(`${user}'s device ${created.device.id} (${addresses.join(", ")}) up in ${ns}`);
  return { user, ns, deviceId: created.device.id, addresses };
}

/** One new TCP connection from the client's namespace; true when the listener's letter came back. */
async function connects(c: Client, dest: string, port: number, timeoutS = 3): Promise<boolean> {
  const want = port === PORT_A ? "A" : "B";
  const r = await nsExec(c.ns, "timeout", [String(timeoutS), "bash", "-c", `exec 3<>/dev/tcp/${dest}/${port} && head -c 1 <&3`], { timeoutMs: (timeoutS + 5) * 1000 });
  return r.code === 0 && r.stdout === want;
}

interface Expect {
  c: Client;
  dest: string;
  port: number;
  allowed: boolean;
}

const describeExp = (e: Expect) => `${e.c.user} → ${e.dest.includes(":") ? `[${e.dest}]` : e.dest}:${e.port}`;

/** What the console's explainer says about one connection of this device. */
async function explain(e: Expect): Promise<{ allowed: boolean; rule: { id: number; name: string } | null; reason: string }> {
  const q = new URLSearchParams({ location: String(locationId), device: String(e.c.deviceId), destination: e.dest, port: String(e.port), protocol: "6" });
  return api.ok("GET", `/acl/check?${q}`, undefined, 200);
}

/**
 * Wait until every probe has the expected outcome at once (the gateway applies a change within
 * milliseconds; probes of one round run together), then check that the explainer agrees with
 * each observed outcome.
 */
async function expectReach(what: string, list: Expect[], timeoutMs = 20_000): Promise<void> {
  let last: boolean[] = [];
  const t0 = performance.now();
  for (;;) {
    last = await Promise.all(list.map((e) => connects(e.c, e.dest, e.port)));
    if (last.every((ok, i) => ok === list[i].allowed)) break;
    if (performance.now() - t0 > timeoutMs) {
      const wrong = list.map((e, i) => `${describeExp(e)}: ${last[i] ? "connected" : "no connection"}, expected ${e.allowed ? "connected" : "none"}`).filter((_, i) => last[i] !== list[i].allowed);
      throw new Error(`${what}: after ${timeoutMs} ms still\n  ${wrong.join("\n  ")}\nagent log (tail):\n${readFileSync(agentLog, "utf8").slice(-2500)}`);
    }
    await sleep(100);
  }
  for (const [i, e] of list.entries()) {
    const check = await explain(e);
    expect(check.allowed, `${what}: /acl/check for ${describeExp(e)} (observed: ${last[i] ? "connected" : "no connection"}; reason: ${check.reason})`).toBe(last[i]);
  }
  log(`${what}: ${list.map((e, i) => `${describeExp(e)} ${last[i] ? "✓" : "✗"}`).join(", ")}`);
}

/** Time from `since` until `ok()` first holds, probing without pause; throws after `timeoutMs`. */
async function timeUntil(what: string, since: number, ok: () => Promise<boolean>, timeoutMs = 10_000): Promise<number> {
  for (;;) {
    const started = performance.now();
    if (await ok()) return started - since;
    if (performance.now() - since > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
  }
}

const locBody = (acl: boolean, defaultAllow: boolean) => ({
  name: `dgt-acl-${sfx}`,
  address: "203.0.113.1/24, 2001:db8:7::1/64",
  endpoint: "198.51.100.1",
  port: 51820,
  allowed_ips: "198.51.100.128/26, 2001:db8:5::/64",
  dns: null,
  allowed_groups: [],
  acl_enabled: acl,
  acl_default_allow: defaultAllow,
});

describe.skipIf(unavailable !== null)("ACL enforced by the gateway agent (network namespaces)", () => {
  let alice: Client;
  let bob: Client;
  let groupRuleId = 0;
  stopAfterFirstFailure(() => agentLog, log);

  beforeAll(async () => {
    tmp = await setUpRun(res, { root, tmpPrefix: "defguard-net-acl-", namespaces: Object.values(NS), currentConsole: () => server, log });
    await veth(res, { ns: null, name: ROOT_LINK, cidr: `${CONSOLE_HOST}/30` }, { ns: NS.gw, name: "to-root", cidr: `${GW_HOST}/30` }, ROOT_LINK, `dgt-t0-${sfx}`);
    await veth(res, { ns: NS.gw, name: "to-client", cidr: "198.51.100.1/26" }, { ns: NS.client, name: "to-gw", cidr: "198.51.100.2/26" }, `dgt-t1-${sfx}`, `dgt-t2-${sfx}`);
    await veth(res, { ns: NS.gw, name: "to-client2", cidr: "198.51.100.65/26" }, { ns: NS.client2, name: "to-gw", cidr: "198.51.100.66/26" }, `dgt-t3-${sfx}`, `dgt-t4-${sfx}`);
    await veth(res, { ns: NS.gw, name: "to-srv", cidr: "198.51.100.129/26" }, { ns: NS.srv, name: "to-gw", cidr: "198.51.100.130/26" }, `dgt-t5-${sfx}`, `dgt-t6-${sfx}`);
    await must("ip", ["-n", NS.client2, "route", "add", "198.51.100.0/26", "via", "198.51.100.65"]);
    // IPv6 without duplicate address detection (no waiting for tentative addresses).
    await must("ip", ["-n", NS.gw, "-6", "address", "add", "2001:db8:5::1/64", "dev", "to-srv", "nodad"]);
    for (const [v4, v6] of Object.values(SRV)) {
      if (v4 !== "198.51.100.130") await must("ip", ["-n", NS.srv, "address", "add", `${v4}/26`, "dev", "to-gw"]);
      await must("ip", ["-n", NS.srv, "-6", "address", "add", `${v6}/64`, "dev", "to-gw", "nodad"]);
    }
    await must("ip", ["-n", NS.srv, "route", "add", "default", "via", "198.51.100.129"]);
    await must("ip", ["-n", NS.srv, "-6", "route", "add", "default", "via", "2001:db8:5::1"]);
    await nsMust(NS.gw, "sysctl", ["-q", "-w", "net.ipv4.ip_forward=1"]);
    await nsMust(NS.gw, "sysctl", ["-q", "-w", "net.ipv6.conf.all.forwarding=1"]);

    // The listeners: one process, ports A and B, both families (`::` takes IPv4 too).
    const listener = `const net=require("node:net");for(const [p,l] of [[${PORT_A},"A"],[${PORT_B},"B"]])net.createServer(s=>{s.on("error",()=>{});s.end(l)}).listen({port:p,host:"::",ipv6Only:false},()=>console.log("listening",p));`;
    const srvLog = join(tmp, "listener.log");
    const fd = openSync(srvLog, "a");
    const child = spawn("ip", ["netns", "exec", NS.srv, process.execPath, "-e", listener], { stdio: ["ignore", fd, fd] });
    closeSync(fd);
    res.pids.add(child.pid!);
    await until("listeners on A and B", async () => (readFileSync(srvLog, "utf8").match(/listening/g) ?? []).length === 2, 10_000, 50);

    let grpcPort: number;
    ({ server, grpcPort } = await startConsole(root, tmp, CONSOLE_HOST, { DEFGUARD_ACL_EXPIRY_INTERVAL: String(EXPIRY_INTERVAL_S) }));
    api = await signInAdmin(server);

    const loc = await api.ok<{ id: number }>("POST", "/network", locBody(false, false));
    locationId = loc.id;
    for (const u of ["alice", "bob"]) {
      await api.ok("POST", "/user", { username: u, first_name: "Net", last_name: u, email: `${u}@example.com`, phone: null, password: null });
    }
    await api.ok("POST", "/group", { name: "G", members: ["alice"] });

    const { token } = await api.ok<{ token: string }>("GET", `/network/${locationId}/token`, undefined, 200);
    agentLog = join(tmp, "agent.log");
    ({ child: agent, exited: agentExit } = spawnAgent(res, {
      root,
      ns: NS.gw,
      logFile: agentLog,
      token,
      grpcUrl: `http://${CONSOLE_HOST}:${grpcPort}`,
      ifname: IF,
      env: {
        HEALTH_PORT: String(HEALTH_PORT),
        DEFGUARD_HOSTNAME: NS.gw,
        DEFGUARD_STATE_REPORT_PERIOD: "2",
      },
    }));
    await until(
      "the agent's interface with both addresses",
      async () => {
        const r = await nsExec(NS.gw, "ip", ["-o", "address", "show", "dev", IF]);
        return r.code === 0 && r.stdout.includes("203.0.113.1/24") && r.stdout.includes("2001:db8:7::1/64");
      },
      30_000,
      100,
    ).catch((e) => {
      throw new Error(`${(e as Error).message}\nagent log:\n${readFileSync(agentLog, "utf8").slice(-3000)}`);
    });
    alice = await joinDevice("alice", NS.client, `wgc-a-${sfx}`);
    bob = await joinDevice("bob", NS.client2, `wgc-b-${sfx}`);
    expect(alice.addresses).toHaveLength(2);
    expect(bob.addresses.some((a) => a.includes(":")), "bob's device has an IPv6 address").toBe(true);
  }, 20 * 60_000);

  afterAll(async () => {
    await stopAgent(agent, agentExit);
    await server?.stop().catch(() => {});
    await tearDownRun(res, log, Object.values(NS), sfx);
  }, 60_000);

  const all = (c: Client, allowed: boolean): Expect[] =>
    Object.values(SRV).flatMap(([v4, v6]) => [PORT_A, PORT_B].flatMap((port) => [v4, v6].map((dest) => ({ c, dest, port, allowed }))));

  it("ACL off: both users reach both ports over IPv4 and IPv6; the explainer says allowed", async () => {
    expect((await nsExec(NS.gw, "nft", ["list", "table", "inet", firewallTableName(IF)])).code, "no firewall table while ACL is off").not.toBe(0);
    await expectReach("ACL off", [...all(alice, true), ...all(bob, true)]);
  });

  it("default deny and a rule allowing group G to port A: alice (in G) reaches A only, bob nothing; deploy to effect measured", async () => {
    await api.ok("PUT", `/network/${locationId}`, locBody(true, false), 200);
    const [v4, v6] = SRV.group;
    await expectReach("ACL on, no rule", [
      { c: alice, dest: v4, port: PORT_A, allowed: false },
      { c: alice, dest: v6, port: PORT_A, allowed: false },
    ]);
    const g = await api.ok<{ id: number }>("GET", "/group/G", undefined, 200);
    const rule = await api.ok<{ id: number }>("POST", "/acl/rule", {
      name: "G to A",
      networks: [locationId],
      allowed_groups: [g.id],
      destination: `${v4}, ${v6}`,
      ports: String(PORT_A),
      protocols: [6],
    });
    const t0 = performance.now();
    await api.ok("PUT", "/acl/rule/apply", { rules: [rule.id] }, 200);
    const answered = performance.now();
    const ms = await timeUntil("alice reaching A", answered, () => connects(alice, v4, PORT_A, 0.15));
    log(`rule deployed → alice's first connection to A: ${ms.toFixed(0)} ms after the API answered (${(answered - t0).toFixed(0)} ms API)`);
    // A new rule keeps its id when deployed (only a modified copy replaces its parent's).
    groupRuleId = rule.id;
    await expectReach("G → A, default deny", [
      { c: alice, dest: v4, port: PORT_A, allowed: true },
      { c: alice, dest: v6, port: PORT_A, allowed: true },
      { c: alice, dest: v4, port: PORT_B, allowed: false },
      { c: alice, dest: v6, port: PORT_B, allowed: false },
      { c: bob, dest: v4, port: PORT_A, allowed: false },
      { c: bob, dest: v6, port: PORT_A, allowed: false },
      { c: bob, dest: v4, port: PORT_B, allowed: false },
      { c: bob, dest: v6, port: PORT_B, allowed: false },
      // Not covered by any rule: the default policy.
      { c: alice, dest: SRV.v4rule[0], port: PORT_A, allowed: false },
    ]);
    const check = await explain({ c: alice, dest: v4, port: PORT_A, allowed: true });
    expect(check.rule?.id).toBe(groupRuleId);
  });

  it("removing alice from G cuts her access to A within one second", async () => {
    const [v4, v6] = SRV.group;
    expect(await connects(alice, v4, PORT_A)).toBe(true);
    const t0 = performance.now();
    await api.ok("DELETE", "/group/G/user/alice", undefined, 200);
    const answered = performance.now();
    const ms = await timeUntil("alice cut off from A", answered, async () => !(await connects(alice, v4, PORT_A, 0.25)));
    log(`alice removed from G → her first refused connection to A: ${ms.toFixed(0)} ms after the API answered (${(answered - t0).toFixed(0)} ms API)`);
    expect(ms, "group removal to traffic effect (ms)").toBeLessThan(1000);
    await expectReach("alice outside G", [
      { c: alice, dest: v4, port: PORT_A, allowed: false },
      { c: alice, dest: v6, port: PORT_A, allowed: false },
    ]);
  });

  it("a rule with an expiry works until it and stops after it", async () => {
    const [v4] = SRV.group;
    const bobUser = await api.ok<{ user: { id: number } }>("GET", "/user/bob", undefined, 200);
    const expires = new Date(Date.now() + 8000);
    expires.setUTCMilliseconds(0);
    const rule = await api.ok<{ id: number; expires: string }>("POST", "/acl/rule", {
      name: "bob to B until soon",
      networks: [locationId],
      allowed_users: [bobUser.user.id],
      destination: v4,
      ports: String(PORT_B),
      protocols: [6],
      expires: expires.toISOString(),
    });
    await api.ok("PUT", "/acl/rule/apply", { rules: [rule.id] }, 200);
    await expectReach("before the expiry", [{ c: bob, dest: v4, port: PORT_B, allowed: true }]);
    expect(Date.now(), "the rule was seen working before its expiry").toBeLessThan(expires.getTime());
    const msLeft = expires.getTime() - Date.now();
    await sleep(Math.max(0, msLeft - 300));
    expect(await connects(bob, v4, PORT_B, 0.25), "still working just before the expiry").toBe(true);
    // performance.now() of the expiry instant.
    const expiryAt = performance.now() + (expires.getTime() - Date.now());
    await sleep(Math.max(0, expiryAt - performance.now()));
    const after = await timeUntil("bob cut off after the expiry", expiryAt, async () => !(await connects(bob, v4, PORT_B, 0.25)), EXPIRY_INTERVAL_S * 1000 + 10_000);
    log(`rule expiry → bob's first refused connection: ${after.toFixed(0)} ms after the expiry (job every ${EXPIRY_INTERVAL_S} s)`);
    await expectReach("after the expiry", [{ c: bob, dest: v4, port: PORT_B, allowed: false }]);
    const rules = await api.ok<{ name: string; state: string }[]>("GET", "/acl/rule", undefined, 200);
    expect(rules.find((r) => r.name === "bob to B until soon")?.state).toBe("expired");
  });

  it("an IPv4-only and an IPv6-only rule each open and close only their own family", async () => {
    const bobUser = await api.ok<{ user: { id: number } }>("GET", "/user/bob", undefined, 200);
    const ids: number[] = [];
    for (const [name, dest, port] of [
      ["bob v4 to B", SRV.v4rule[0], PORT_B],
      ["bob v6 to A", SRV.v6rule[1], PORT_A],
    ] as const) {
      const r = await api.ok<{ id: number }>("POST", "/acl/rule", {
        name,
        networks: [locationId],
        allowed_users: [bobUser.user.id],
        destination: dest,
        ports: String(port),
        protocols: [6],
      });
      ids.push(r.id);
    }
    await api.ok("PUT", "/acl/rule/apply", { rules: ids }, 200);
    // Default deny: each rule opens its own family only.
    await expectReach("family rules, default deny (bob)", [
      { c: bob, dest: SRV.v4rule[0], port: PORT_B, allowed: true },
      { c: bob, dest: SRV.v4rule[1], port: PORT_B, allowed: false },
      { c: bob, dest: SRV.v6rule[1], port: PORT_A, allowed: true },
      { c: bob, dest: SRV.v6rule[0], port: PORT_A, allowed: false },
    ]);
    // Default allow: each rule's deny half closes its own family only, for everyone else.
    await api.ok("PUT", `/network/${locationId}`, locBody(true, true), 200);
    await expectReach("family rules, default allow (alice)", [
      { c: alice, dest: SRV.v4rule[0], port: PORT_B, allowed: false },
      { c: alice, dest: SRV.v4rule[1], port: PORT_B, allowed: true },
      { c: alice, dest: SRV.v6rule[1], port: PORT_A, allowed: false },
      { c: alice, dest: SRV.v6rule[0], port: PORT_A, allowed: true },
      { c: bob, dest: SRV.v4rule[0], port: PORT_B, allowed: true },
      { c: bob, dest: SRV.v6rule[1], port: PORT_A, allowed: true },
    ]);
  });

  it("after incremental firewall updates the drift digest matches; a rule deleted behind the agent's back is drift, repaired with the whole table", async () => {
    const agentText = () => readFileSync(agentLog, "utf8");
    // The changes above reached the agent as incremental updates of the table it loaded first.
    expect(agentText()).toMatch(/firewall applied \(whole table/);
    expect(agentText()).toMatch(/firewall applied \(incremental/);
    const ourGateway = async () =>
      (await api.ok<{ hostname: string; sync_state: string; expected_revision: number; applied_revision: number | null }[]>("GET", `/network/${locationId}/gateways`, undefined, 200)).find((g) => g.hostname === NS.gw) ?? null;
    const synced = await until("in_sync after the incremental updates", async () => {
      const g = await ourGateway();
      return g?.sync_state === "in_sync" ? g : null;
    }, 20_000, 200);
    expect(synced.applied_revision).toBe(synced.expected_revision);
    // Someone deletes the last rule of the forward chain (with the default allow policy now on,
    // the IPv6-only rule's deny half) behind the agent's back.
    const listing = await nsExec(NS.gw, "nft", ["-a", "list", "chain", "inet", firewallTableName(IF), "forward"]);
    expect(listing.code).toBe(0);
    const handles = [...listing.stdout.matchAll(/# handle (\d+)\n/g)].map((m) => m[1]);
    expect(handles.length).toBeGreaterThan(2);
    const before = agentText().length;
    expect((await nsExec(NS.gw, "nft", ["delete", "rule", "inet", firewallTableName(IF), "forward", "handle", handles.at(-1)!])).code).toBe(0);
    // Reported as drift and repaired (automatic repair is on by default): the agent forgot the
    // table it had applied, so the repair replaces the whole table.
    await until("the table repaired as a whole", async () => /firewall applied \(whole table/.test(agentText().slice(before)), 30_000, 200);
    await until("in_sync after the repair", async () => (await ourGateway())?.sync_state === "in_sync", 20_000, 200);
    const after = await nsExec(NS.gw, "nft", ["-a", "list", "chain", "inet", firewallTableName(IF), "forward"]);
    expect([...after.stdout.matchAll(/# handle (\d+)\n/g)]).toHaveLength(handles.length);
    await expectReach("after the repair (alice, default allow)", [
      { c: alice, dest: SRV.v6rule[1], port: PORT_A, allowed: false },
      { c: alice, dest: SRV.v6rule[0], port: PORT_A, allowed: true },
    ]);
  });

  it("turning ACL off removes the table and restores full access", async () => {
    await api.ok("PUT", `/network/${locationId}`, locBody(false, false), 200);
    await until("the table removed", async () => (await nsExec(NS.gw, "nft", ["list", "table", "inet", firewallTableName(IF)])).code !== 0, 5000, 20);
    await expectReach("ACL off again", [...all(alice, true), ...all(bob, true)]);
    expect(groupRuleId).toBeGreaterThan(0);
  });
});
