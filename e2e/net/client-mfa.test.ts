/**
 * MFA for a VPN location, end to end with a real tunnel: a location with internal MFA, the
 * gateway agent with wireguard-go in a namespace, a client namespace running wg-quick.
 *
 *   root ns          dgt-r-<s> 198.51.100.253/30    console: HTTP on loopback, gRPC on 198.51.100.253 only
 *                        │ veth
 *   dgt-gw-<s>       to-root 198.51.100.254/30, to-client 198.51.100.1/26,
 *                    agent (gateway/index.ts) + wireguard-go wg-dgt-<s>: 203.0.113.1/24, port 51820
 *   dgt-client-<s>   to-gw 198.51.100.2/26, wg-quick (wireguard-go): the user's device 203.0.113.2
 *
 * No tunnel before the MFA step (the device is not a peer); after /client-mfa/start and
 * /finish with a TOTP code the gateway has the peer with the preshared key the client received,
 * and the client's wg-quick config with that PresharedKey gets through; once the client stops
 * (no handshake) the session job removes the peer after peer_disconnect_threshold (set short
 * here, straight in the database, below the API's minimum of 120 s).
 *
 * Same address plan as tunnel.test.ts (see its header: the host's eth0 may be in 192.0.2.0/24,
 * so nothing here uses it): run one network test at a time, under `flock /tmp/dgt-net.lock`.
 */
import type { ChildProcess } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RunningServer } from "../setup/server";
import { generateKeyPair } from "../../lib/wireguard/keys";
import { currentStep, totpCodeAt } from "../../lib/mfa/totp";
import { Api } from "./api";
import { agentHealth, consoleQuery, setUpRun, signInAdmin, spawnAgent, startConsole, stopAfterFirstFailure, stopAgent, tearDownRun } from "./harness";
import { gwPeers, netTestsUnavailable, nsExec, nsMust, pingCommand, Resources, sleep, until, veth } from "./netns";

const unavailable = netTestsUnavailable();
if (unavailable) console.log(`[net] skipping the location MFA namespace test: ${unavailable}`);

const root = process.cwd();
const sfx = randomBytes(2).toString("hex");
const NS = { gw: `dgt-gw-${sfx}`, client: `dgt-client-${sfx}` };
const IF = `wg-dgt-${sfx}`;
const CLIENT_IF = `wgc-m-${sfx}`;
const ROOT_LINK = `dgt-r-${sfx}`;
const HEALTH_PORT = 9181;
const GW_HOST = "198.51.100.254";
const CONSOLE_HOST = "198.51.100.253";
const THRESHOLD_S = 6;
const res = new Resources();
const ping = pingCommand() ?? ["ping"];
const WG_ENV = { ...process.env, WG_QUICK_USERSPACE_IMPLEMENTATION: "wireguard-go", WG_I_PREFER_BUGGY_USERSPACE_TO_POLISHED_KMOD: "1" };

let tmp = "";
let server: RunningServer | null = null;
let api: Api;
let agent: ChildProcess | null = null;
let agentExit: Promise<number | null> = Promise.resolve(null);
let agentLog = "";

const log = (msg: string) => console.log(`[net] ${msg}`);

const health = () => agentHealth(GW_HOST, HEALTH_PORT);

async function pingOk(dest: string, count = 3): Promise<boolean> {
  const r = await nsExec(NS.client, ping[0], [...ping.slice(1), "-c", String(count), "-W", "2", dest], { timeoutMs: 20_000 });
  return r.code === 0;
}

const dbQuery = <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => consoleQuery<T>(server!, sql, params);

/** The answer of a public (proxy) endpoint: status and JSON. */
async function proxyPost(path: string, body: unknown): Promise<{ status: number; json: any }> {
  const r = await fetch(`${server!.baseURL}/api/v1${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : null };
}

function startAgent(token: string, grpcPort: number) {
  agentLog = join(tmp, "agent.log");
  const { child, exited } = spawnAgent(res, {
    root,
    ns: NS.gw,
    logFile: agentLog,
    token,
    grpcUrl: `http://${CONSOLE_HOST}:${grpcPort}`,
    ifname: IF,
    env: {
      DEFGUARD_STATS_PERIOD: "2",
      HEALTH_PORT: String(HEALTH_PORT),
      DEFGUARD_HOSTNAME: NS.gw,
      DEFGUARD_GATEWAY_NAME: "net-mfa",
    },
  });
  agent = child;
  agentExit = exited;
}

/** The gateway's preshared key for a peer ("(none)" without one). */
async function gwPsk(pubkey: string): Promise<string | null> {
  const out = await nsMust(NS.gw, "wg", ["show", IF, "preshared-keys"]);
  const line = out.split("\n").find((l) => l.startsWith(pubkey));
  return line ? line.split("\t")[1].trim() : null;
}

describe.skipIf(unavailable !== null)("location MFA through the gateway agent (network namespaces)", () => {
  let locationId = 0;
  let locationPubkey = "";
  let grpcPort = 0;
  let totpSecret = "";
  let deviceId = 0;
  let configText = "";
  const keys = generateKeyPair();
  let psk = "";
  stopAfterFirstFailure(() => agentLog, log);

  beforeAll(async () => {
    tmp = await setUpRun(res, { root, tmpPrefix: "defguard-net-mfa-", namespaces: Object.values(NS), currentConsole: () => server, log });
    await veth(res, { ns: null, name: ROOT_LINK, cidr: `${CONSOLE_HOST}/30` }, { ns: NS.gw, name: "to-root", cidr: `${GW_HOST}/30` }, ROOT_LINK, `dgt-t0-${sfx}`);
    await veth(res, { ns: NS.gw, name: "to-client", cidr: "198.51.100.1/26" }, { ns: NS.client, name: "to-gw", cidr: "198.51.100.2/26" }, `dgt-t1-${sfx}`, `dgt-t2-${sfx}`);
    ({ server, grpcPort } = await startConsole(root, tmp, CONSOLE_HOST));
    api = await signInAdmin(server);
  }, 20 * 60_000);

  afterAll(async () => {
    await nsExec(NS.client, "wg-quick", ["down", join(tmp, `${CLIENT_IF}.conf`)], { env: WG_ENV }).catch(() => {});
    await stopAgent(agent, agentExit);
    await server?.stop().catch(() => {});
    await tearDownRun(res, log, Object.values(NS), sfx);
  }, 60_000);

  it("a device of an internal-MFA location is no peer and gets no tunnel before the MFA step", async () => {
    const loc = await api.ok<{ id: number; pubkey: string }>("POST", "/network", {
      name: `dgt-mfa-${sfx}`,
      address: "203.0.113.1/24",
      endpoint: "198.51.100.1",
      port: 51820,
      allowed_ips: "203.0.113.0/24",
      dns: null,
      allowed_groups: [],
      location_mfa_mode: "internal",
    });
    locationId = loc.id;
    locationPubkey = loc.pubkey;
    // The user, with TOTP turned on through the API (signed in as themself).
    const password = "Mfa-Net-Passw0rd!";
    await api.ok("POST", "/user", { username: "mira", first_name: "Mira", last_name: "Net", email: "mira@example.com", phone: null, password });
    const mira = new Api(server!.baseURL);
    await mira.signIn("mira", password);
    totpSecret = (await mira.ok<{ secret: string }>("POST", "/auth/totp/init", undefined, 200)).secret;
    await mira.ok("POST", "/auth/totp", { code: await totpCodeAt(totpSecret, currentStep()) }, 200);

    const { token } = await api.ok<{ token: string }>("GET", `/network/${locationId}/token`, undefined, 200);
    startAgent(token, grpcPort);
    await until("agent health 200", async () => (await health()) === 200, 30_000, 100).catch((e) => {
      throw new Error(`${e.message}\nagent log:\n${readFileSync(agentLog, "utf8").slice(-3000)}`);
    });

    const created = await api.ok<{ device: { id: number }; configs: { network_id: number; address: string[] }[] }>("POST", "/device/mira", { name: "mira-laptop", wireguard_pubkey: keys.publicKey, description: null });
    deviceId = created.device.id;
    expect(created.configs.find((c) => c.network_id === locationId)?.address).toEqual(["203.0.113.2"]);
    configText = await api.ok<string>("GET", `/network/${locationId}/device/${deviceId}/config`, undefined, 200);
    expect(configText).not.toContain("PresharedKey");
    const file = join(tmp, `${CLIENT_IF}.conf`);
    writeFileSync(file, configText.replace("YOUR_PRIVATE_KEY", keys.privateKey), { mode: 0o600 });
    await nsMust(NS.client, "wg-quick", ["up", file], { env: WG_ENV });

    expect(await pingOk("203.0.113.1", 2), "no tunnel before MFA").toBe(false);
    expect((await gwPeers(NS.gw, IF)).has(keys.publicKey), "the device is not a peer before MFA").toBe(false);
  });

  it("after /client-mfa/start and /finish the gateway has the peer with the client's PSK, and the tunnel works", async () => {
    const s = await proxyPost("/client-mfa/start", { location_id: locationId, pubkey: keys.publicKey, method: 0 });
    expect(s.status, JSON.stringify(s.json)).toBe(200);
    await sleep(1000);
    expect((await gwPeers(NS.gw, IF)).has(keys.publicKey), "not a peer after /start alone").toBe(false);
    // The step after the one that turned TOTP on (a code is accepted once).
    const f = await proxyPost("/client-mfa/finish", { token: s.json.token, code: await totpCodeAt(totpSecret, currentStep() + 1) });
    expect(f.status, JSON.stringify(f.json)).toBe(200);
    psk = f.json.preshared_key;
    const t0 = Date.now();
    await until("peer on the gateway after MFA", async () => (await gwPeers(NS.gw, IF)).has(keys.publicKey), 10_000, 20);
    log(`peer on the gateway ${Date.now() - t0} ms after /finish answered`);
    expect(await gwPsk(keys.publicKey)).toBe(psk);

    // The client's config with the PSK it received (what the desktop client does).
    const file = join(tmp, `${CLIENT_IF}.conf`);
    await nsMust(NS.client, "wg-quick", ["down", file], { env: WG_ENV });
    const withPsk = configText.replace("YOUR_PRIVATE_KEY", keys.privateKey).replace(`PublicKey = ${locationPubkey}`, `PublicKey = ${locationPubkey}\nPresharedKey = ${psk}`);
    expect(withPsk).toContain(`PresharedKey = ${psk}`);
    writeFileSync(file, withPsk, { mode: 0o600 });
    await nsMust(NS.client, "wg-quick", ["up", file], { env: WG_ENV });
    expect(await pingOk("203.0.113.1"), "tunnel after MFA with the PSK").toBe(true);
    const [ev] = await dbQuery<{ n: string }>("select count(*) n from activity_log where event = 'vpn_client_connected_mfa' and username = 'mira'");
    expect(Number(ev.n)).toBe(1);
    // The PSK is in no log: neither the console's nor the agent's.
    expect(readFileSync(join(tmp, "console.log"), "utf8")).not.toContain(psk);
    expect(readFileSync(agentLog, "utf8")).not.toContain(psk);
  });

  it("once the client stops, the peer is removed after the disconnect threshold and its PSK discarded", async () => {
    // Short threshold, straight in the database (the API's minimum is 120 s).
    await dbQuery("update locations set peer_disconnect_threshold = $1 where id = $2", [THRESHOLD_S, locationId]);
    await until("stats with the handshake", async () => (await dbQuery<{ h: Date | null }>("select last_handshake h from device_locations where device_id = $1", [deviceId]))[0]?.h ?? null, 15_000, 200);
    await nsMust(NS.client, "wg-quick", ["down", join(tmp, `${CLIENT_IF}.conf`)], { env: WG_ENV });
    const t0 = Date.now();
    // Threshold, plus up to one run interval of the job (10 s), plus the stats period.
    await until("peer removed from the gateway", async () => !(await gwPeers(NS.gw, IF)).has(keys.publicKey), 60_000, 200);
    const elapsed = (Date.now() - t0) / 1000;
    log(`peer removed ${elapsed.toFixed(1)} s after the client went down (threshold ${THRESHOLD_S} s, job every 10 s)`);
    const [link] = await dbQuery<{ is_authorized: boolean; preshared_key: string | null }>("select is_authorized, preshared_key from device_locations where device_id = $1 and location_id = $2", [deviceId, locationId]);
    expect(link).toEqual({ is_authorized: false, preshared_key: null });
    const [ev] = await dbQuery<{ n: string }>("select count(*) n from activity_log where event = 'vpn_client_disconnected_mfa' and username = 'mira'");
    expect(Number(ev.n)).toBe(1);
    // Without a new MFA login the client gets no tunnel again.
    await nsMust(NS.client, "wg-quick", ["up", join(tmp, `${CLIENT_IF}.conf`)], { env: WG_ENV });
    expect(await pingOk("203.0.113.1", 2)).toBe(false);
  });
});
