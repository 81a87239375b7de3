/**
 * Gateway path benchmarks (nothing asserted, targets only reported):
 *
 * 1. Peer add latency (root only): the agent (gateway/index.ts, wireguard-go) runs in a network
 *    namespace with 5,000 peers already applied; 200 devices are added with
 *    POST /api/v1/device/{username}. Latency = from the API's answer to the peer being on the
 *    interface, measured two ways: the agent's log line written right after its `wg set`
 *    returned (ms precision), and polling `wg show <if> peers` (resolution = one poll, ~80 ms
 *    with 5,000 peers on wireguard-go). Target p99 < 250 ms.
 * 2. A full Config for 10,000 peers: console CPU to build it (DB read + decrypt + mapping),
 *    protobufjs encode CPU and size, and the agent's CPU to decode it and reconcile it against
 *    an identical interface (the every-reconnect case: zero ops).
 * 3. Stats ingest: lib/stats/ingest.ts ingestBatch straight against the database, 10,000
 *    devices in one location, batches of the console's own size (STATS_BATCH, as StatsBuffer
 *    writes them), ~10 s. Target ≥ 20,000 samples/s.
 *
 * Knobs: BENCH_GATEWAY_PEERS (5000), BENCH_GATEWAY_ADDS (200), BENCH_GATEWAY_CONFIG_PEERS (10000),
 * BENCH_GATEWAY_INGEST_SECONDS (10), BENCH_GATEWAY_KEEPALIVE (location keepalive, default the
 * console's 25), BENCH_GATEWAY_EXPLAIN=1 (log the plan of one ingest batch).
 *
 * Network: the namespace is joined to the root namespace by one /30 in a documentation range
 * (198.51.100.252/30), as in e2e/net; tunnel addresses are in 2001:db8::/32 (5,000+ peers do not
 * fit a documentation /24).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { closeSync, openSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import pg from "pg";
import protobuf from "protobufjs";
import { ensureBuild, E2E_DIST_DIR } from "../../e2e/setup/build";
import { freePort, makeTempDir, startServer, type RunningServer } from "../../e2e/setup/server";
import { Api } from "../../e2e/net/api";
import { must, netTestsUnavailable, Resources, sh, stopConsoleSync, veth } from "../../e2e/net/netns";
import { generateKeyPair } from "../../lib/wireguard/keys";
import { formatIp, parseCidr } from "../../lib/net/ip";
import { allocateMany } from "../../lib/wireguard/ip";
import { desiredState, diff } from "../../gateway/reconcile";
import { protoDir, LOADER_OPTIONS } from "../../gateway/proto";
import { max, ms, percentile } from "../lib/stats";
import type { Row, Suite, SuiteContext } from "../lib/types";

const PRESENT = Number(process.env.BENCH_GATEWAY_PEERS || 5000);
const ADDS = Number(process.env.BENCH_GATEWAY_ADDS || 200);
const CONFIG_PEERS = Number(process.env.BENCH_GATEWAY_CONFIG_PEERS || 10_000);
const INGEST_SECONDS = Number(process.env.BENCH_GATEWAY_INGEST_SECONDS || 10);

const CONSOLE_HOST = "198.51.100.253";
const GW_HOST = "198.51.100.254";

interface Topology {
  ns: string;
  ifname: string;
}

/** The agent's namespace, joined to the root namespace by one /30 (the console's gRPC binds to its root end). */
async function topology(res: Resources): Promise<Topology> {
  const sfx = randomBytes(2).toString("hex");
  const ns = `dgt-bench-${sfx}`;
  await must("ip", ["netns", "add", ns]);
  res.namespaces.push(ns);
  await must("ip", ["-n", ns, "link", "set", "lo", "up"]);
  const rootLink = `dgt-r-${sfx}`;
  await veth(res, { ns: null, name: rootLink, cidr: `${CONSOLE_HOST}/30` }, { ns, name: "to-root", cidr: `${GW_HOST}/30` }, rootLink, `dgt-t0-${sfx}`);
  return { ns, ifname: `wg-dgb-${sfx}` };
}

interface Env {
  topo: Topology | null;
  grpcPort: number;
  ctx: SuiteContext;
  server: RunningServer;
  api: Api;
  db: pg.Client;
  res: Resources;
}

const fmtInt = (n: number) => Math.round(n).toLocaleString("en-US");

/** Users (via the API) and a group that a location is restricted to. */
async function usersInGroup(api: Api, group: string, usernames: string[]) {
  for (const u of usernames) await api.ok("POST", "/user", { username: u, first_name: "Bench", last_name: u, email: `${u}@bench.invalid`, phone: null, password: null });
  await api.ok("POST", "/group", { name: group, members: usernames });
}

/** `count` devices of one user with addresses in one location, straight into the database. */
async function bulkDevices(db: pg.Client, username: string, locationId: number, cidrText: string, count: number, prefix: string): Promise<string[]> {
  const [{ id: userId }] = (await db.query<{ id: number }>("select id from users where username = $1", [username])).rows;
  const cidr = parseCidr(cidrText)!;
  const gwIp = (await db.query<{ address: string[] }>("select address from locations where id = $1", [locationId])).rows[0].address[0].split("/")[0];
  const used = new Set<bigint>([parseCidr(`${gwIp}/${cidr.prefix}`)!.addr]);
  const ips = allocateMany(cidr, used, count).map((v) => formatIp(v, cidr.version));
  const keys = Array.from({ length: count }, () => generateKeyPair().publicKey);
  for (let off = 0; off < count; off += 2000) {
    const slice = keys.slice(off, off + 2000);
    const ids = (
      await db.query<{ id: number }>(
        `insert into devices (name, wireguard_pubkey, user_id) select $1 || n, k, $2 from unnest($3::text[]) with ordinality as t(k, n) returning id`,
        [`${prefix}-${off}-`, userId, slice],
      )
    ).rows.map((r) => r.id);
    await db.query(
      `insert into device_locations (device_id, location_id, ips) select d, $1, array[ip] from unnest($2::int[], $3::text[]) as t(d, ip)`,
      [locationId, ids, ips.slice(off, off + 2000)],
    );
  }
  return keys;
}

async function createLocation(api: Api, name: string, address: string, group: string): Promise<number> {
  const loc = await api.ok<{ id: number }>("POST", "/network", {
    name,
    address,
    endpoint: GW_HOST,
    port: 51820,
    allowed_ips: address.replace(/::1\/64$/, "::/64"),
    dns: null,
    allowed_groups: [group],
    ...(process.env.BENCH_GATEWAY_KEEPALIVE ? { keepalive_interval: Number(process.env.BENCH_GATEWAY_KEEPALIVE) } : {}),
  });
  return loc.id;
}

// ------------------------------------------------------------------------------------------
// 1. Peer add latency

async function peerAddLatency(env: Env, unavailable: string | null): Promise<Row[]> {
  const label = `peer add: API answered → peer on the agent's interface (${fmtInt(ADDS)} adds, ${fmtInt(PRESENT)} peers present)`;
  if (unavailable) return [{ measure: label, result: "skipped", target: "p99 < 250 ms", details: unavailable }];
  const { ctx, api, db, res } = env;
  const { ns, ifname } = env.topo!;

  await usersInGroup(api, "bench-l1", ["bench-add", "bench-bulk1"]);
  const locationId = await createLocation(api, "bench-l1", "2001:db8:100::1/64", "bench-l1");
  const t0 = performance.now();
  await bulkDevices(db, "bench-bulk1", locationId, "2001:db8:100::/64", PRESENT, "bulk1");
  ctx.log(`[gateway] ${fmtInt(PRESENT)} devices inserted in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const { token } = await api.ok<{ token: string }>("GET", `/network/${locationId}/token`, undefined, 200);

  const logFile = join(env.server.dataDir, "..", "agent.log");
  const fd = openSync(logFile, "a");
  const grpcPort = env.grpcPort;
  const agentStart = performance.now();
  const agent: ChildProcess = spawn("ip", ["netns", "exec", ns, process.execPath, "--import", "tsx", "gateway/index.ts"], {
    cwd: ctx.root,
    stdio: ["ignore", fd, fd],
    env: {
      ...process.env,
      DEFGUARD_TOKEN: token,
      DEFGUARD_GRPC_URL: `http://${CONSOLE_HOST}:${grpcPort}`,
      DEFGUARD_IFNAME: ifname,
      DEFGUARD_USERSPACE: "1",
      DEFGUARD_HOSTNAME: ns,
      HEALTH_PORT: "9180",
    },
  });
  closeSync(fd);
  res.pids.add(agent.pid!);
  const agentExit = new Promise<void>((r) => agent.on("exit", () => r()));
  const peersNow = async () => {
    const r = await sh("ip", ["netns", "exec", ns, "wg", "show", ifname, "peers"]);
    return r.code === 0 ? r.stdout : "";
  };
  try {
    // Cold start: all 5,000 peers applied.
    for (;;) {
      let ok = false;
      try {
        ok = (await fetch(`http://${GW_HOST}:9180/`, { signal: AbortSignal.timeout(2000) })).status === 200;
      } catch {
        // not yet
      }
      if (ok) break;
      if (performance.now() - agentStart > 180_000) throw new Error(`the agent did not connect:\n${readFileSync(logFile, "utf8").slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const coldMs = performance.now() - agentStart;
    const count = (await peersNow()).split("\n").filter(Boolean).length;
    if (count !== PRESENT) throw new Error(`expected ${PRESENT} peers on the interface, found ${count}`);
    ctx.log(`[gateway] agent up with ${fmtInt(count)} peers in ${(coldMs / 1000).toFixed(1)} s`);

    // Pass 1: ADDS adds; the time is taken from the agent's log line, written right after its
    // `wg set` returned (nothing polls wireguard-go meanwhile: a `wg show` of 5,000 peers holds
    // wireguard-go's configuration lock for ~80 ms and would delay the very `wg set` measured).
    // Each add is then confirmed with one `wg show`.
    const viaLog: number[] = [];
    const wgSet: number[] = [];
    const apiMs: number[] = [];
    let logOffset = readFileSync(logFile).length;
    const findLogLine = (prefix: string): string | null => {
      const buf = readFileSync(logFile);
      const text = buf.subarray(logOffset).toString("utf8");
      const idx = text.indexOf(prefix);
      if (idx < 0) return null;
      const lineStart = text.lastIndexOf("\n", idx) + 1;
      const lineEnd = text.indexOf("\n", idx);
      if (lineEnd < 0) return null;
      logOffset += Buffer.byteLength(text.slice(0, lineEnd + 1));
      return text.slice(lineStart, lineEnd);
    };
    const add = async (name: string) => {
      const { publicKey } = generateKeyPair();
      const s = performance.now();
      await api.ok("POST", "/device/bench-add", { name, wireguard_pubkey: publicKey, description: null });
      const answeredPerf = performance.now();
      apiMs.push(answeredPerf - s);
      return { publicKey, answeredPerf, answeredWall: Date.now() - (performance.now() - answeredPerf) };
    };
    for (let i = 0; i < ADDS; i++) {
      const { publicKey, answeredPerf, answeredWall } = await add(`add-${i}`);
      let line: string | null = null;
      while (!(line = findLogLine(`+peer ${publicKey.slice(0, 8)}`))) {
        if (performance.now() - answeredPerf > 15_000) throw new Error(`peer ${i} was not applied within 15 s`);
        await new Promise((r) => setTimeout(r, 1));
      }
      viaLog.push(Date.parse(line.slice(0, 24)) - answeredWall);
      const m = /\(([\d.]+) ms\)\s*$/.exec(line);
      if (m) wgSet.push(Number(m[1]));
      if (!(await peersNow()).includes(publicKey)) throw new Error(`peer ${i} logged as applied but not in wg show`);
    }
    // Pass 2: the same, observed only from outside by polling `wg show <if> peers`.
    const POLLED = Math.min(ADDS, 50);
    const viaPoll: number[] = [];
    const pollCost: number[] = [];
    for (let i = 0; i < POLLED; i++) {
      const { publicKey, answeredPerf } = await add(`poll-${i}`);
      for (;;) {
        const p0 = performance.now();
        const out = await peersNow();
        const p1 = performance.now();
        pollCost.push(p1 - p0);
        if (out.includes(publicKey)) {
          viaPoll.push(p1 - answeredPerf);
          break;
        }
        if (p1 - answeredPerf > 15_000) throw new Error(`peer poll-${i} did not appear within 15 s`);
      }
    }
    const row = (how: string, v: number[], details: string): Row => ({
      measure: `${label}, ${how}`,
      result: `p50 ${ms(percentile(v, 50))} ms, p99 ${ms(percentile(v, 99))} ms, max ${ms(max(v))} ms`,
      target: "p99 < 250 ms",
      details,
    });
    return [
      row(
        "agent log after wg set (confirmed in wg show)",
        viaLog,
        `n=${viaLog.length}; of which the agent's wg set: p50 ${ms(percentile(wgSet, 50))} ms, p99 ${ms(percentile(wgSet, 99))} ms; the API call itself: p50 ${ms(percentile(apiMs, 50))} ms, p99 ${ms(percentile(apiMs, 99))} ms`,
      ),
      {
        ...row(`polling wg show (${POLLED} more adds)`, viaPoll, `upper bound: one poll of ${fmtInt(PRESENT)}+ peers takes p50 ${ms(percentile(pollCost, 50))} ms and holds wireguard-go's config lock meanwhile`),
        measure: `${label.replace(`${fmtInt(ADDS)} adds`, `${POLLED} adds`)}, polling wg show`,
      },
      {
        measure: `agent cold start: connect + apply ${fmtInt(PRESENT)} peers (wireguard-go)`,
        result: `${(coldMs / 1000).toFixed(1)} s`,
        target: "-",
        details: "spawn → health 200 (interface created, key, port, address, all peers in chunks of 250 per wg set)",
      },
    ];
  } finally {
    agent.kill("SIGTERM");
    await Promise.race([agentExit, new Promise((r) => setTimeout(r, 10_000))]);
  }
}

// ------------------------------------------------------------------------------------------
// 2. Config for 10,000 peers, 3. stats ingest

async function configAndIngest(env: Env): Promise<Row[]> {
  const { ctx, api, db } = env;
  await usersInGroup(api, "bench-l2", ["bench-bulk2"]);
  const locationId = await createLocation(api, "bench-l2", "2001:db8:200::1/64", "bench-l2");
  const t0 = performance.now();
  const keys = await bulkDevices(db, "bench-bulk2", locationId, "2001:db8:200::/64", CONFIG_PEERS, "bulk2");
  await db.query("analyze devices; analyze device_locations");
  ctx.log(`[gateway] ${fmtInt(CONFIG_PEERS)} devices inserted in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  // The console's own code, in this process, against the console's database.
  const { gatewayConfiguration } = await import("../../lib/gateways/service");
  const { ingestBatch, STATS_BATCH: BATCH } = await import("../../lib/stats/ingest");
  const root = await protobuf.load(join(protoDir(), "gateway.proto"));
  const Configuration = root.lookupType("gateway.Configuration");

  await gatewayConfiguration(locationId); // warm-up (pool, JIT)
  const runs = 5;
  const build: { wall: number; cpu: number }[] = [];
  const encode: { cpu: number; bytes: number }[] = [];
  const agentSide: { cpu: number; ops: number }[] = [];
  let conf: Awaited<ReturnType<typeof gatewayConfiguration>> | null = null;
  for (let i = 0; i < runs; i++) {
    const c0 = process.cpuUsage();
    const w0 = performance.now();
    conf = await gatewayConfiguration(locationId);
    const c1 = process.cpuUsage(c0);
    build.push({ wall: performance.now() - w0, cpu: (c1.user + c1.system) / 1000 });
    const e0 = process.cpuUsage();
    const bytes = Configuration.encode(Configuration.fromObject(conf)).finish();
    const e1 = process.cpuUsage(e0);
    encode.push({ cpu: (e1.user + e1.system) / 1000, bytes: bytes.length });
    // The agent: decode (as grpc-js + proto-loader would) and reconcile against an identical interface.
    const a0 = process.cpuUsage();
    const decoded = Configuration.toObject(Configuration.decode(bytes), LOADER_OPTIONS as protobuf.IConversionOptions);
    const want = desiredState(decoded as Parameters<typeof desiredState>[0]);
    const ops = diff(desiredState(decoded as Parameters<typeof desiredState>[0]), want);
    const a1 = process.cpuUsage(a0);
    agentSide.push({ cpu: (a1.user + a1.system) / 1000, ops: ops.length });
  }
  if (conf!.peers.length !== CONFIG_PEERS) throw new Error(`Config has ${conf!.peers.length} peers, expected ${CONFIG_PEERS}`);
  const med = (v: number[]) => percentile(v, 50);
  const rows: Row[] = [
    {
      measure: `full Config, ${fmtInt(CONFIG_PEERS)} peers: console builds it (DB read, key decrypt, mapping)`,
      result: `${ms(med(build.map((b) => b.cpu)))} ms CPU (${ms(med(build.map((b) => b.wall)))} ms wall)`,
      target: "-",
      details: `median of ${runs}; process.cpuUsage of this process (PostgreSQL's own time not included)`,
    },
    {
      measure: `full Config, ${fmtInt(CONFIG_PEERS)} peers: protobuf encode (protobufjs, proto/gateway.proto)`,
      result: `${ms(med(encode.map((e) => e.cpu)))} ms CPU, ${fmtInt(encode[0].bytes)} bytes`,
      target: "-",
      details: `${(encode[0].bytes / CONFIG_PEERS).toFixed(1)} bytes/peer`,
    },
    {
      measure: `full Config, ${fmtInt(CONFIG_PEERS)} peers: agent decode + reconcile against an unchanged interface`,
      result: `${ms(med(agentSide.map((a) => a.cpu)))} ms CPU, ${agentSide[0].ops} ops`,
      target: "0 ops",
      details: "what every reconnect costs the agent besides reading `wg show dump`",
    },
  ];

  // Stats ingest.
  let counter = 1000;
  const now = Math.floor(Date.now() / 1000);
  const batches = Math.ceil(CONFIG_PEERS / BATCH);
  const batchAt = (i: number) => {
    counter += 10;
    const off = (i % batches) * BATCH;
    return keys.slice(off, off + BATCH).map((k, j) => ({
      public_key: k,
      endpoint: `198.51.100.${(j % 250) + 1}:${40000 + (j % 1000)}`,
      upload: counter * 3 + j,
      download: counter * 7 + j,
      latest_handshake: now,
    }));
  };
  await ingestBatch(locationId, batchAt(0)); // warm-up
  if (process.env.BENCH_GATEWAY_EXPLAIN === "1") await explainIngest(db, locationId, batchAt(0), ctx);
  const ingestFor = async (seconds: number) => {
    let samples = 0;
    let matched = 0;
    const lat: number[] = [];
    const w0 = performance.now();
    let i = 1;
    while (performance.now() - w0 < seconds * 1000) {
      const batch = batchAt(i++);
      const s = performance.now();
      matched += await ingestBatch(locationId, batch);
      lat.push(performance.now() - s);
      samples += batch.length;
    }
    return { samples, matched, lat, seconds: (performance.now() - w0) / 1000 };
  };
  const r1 = await ingestFor(INGEST_SECONDS);
  const { rows: statRows } = await db.query<{ n: string }>("select count(*) n from device_stats where location_id = $1", [locationId]);
  const ingestRow = (label: string, r: typeof r1, extra: string): Row => ({
    measure: `stats ingest: ingestBatch, ${fmtInt(CONFIG_PEERS)} devices in one location, batches of ${fmtInt(BATCH)}${label}`,
    result: `${fmtInt(r.samples / r.seconds)} samples/s`,
    target: "≥ 20,000/s",
    details: `${fmtInt(r.samples)} samples in ${r.seconds.toFixed(1)} s, ${fmtInt(r.matched)} matched, batch p50 ${ms(percentile(r.lat, 50))} ms / p99 ${ms(percentile(r.lat, 99))} ms${extra}`,
  });
  rows.push(ingestRow("", r1, `; ${fmtInt(Number(statRows[0].n))} device_stats rows`));

  // The overview's queries over what was just written, spread across the last hour as a day of
  // normal use would leave it (the ingest run put every sample in the same ten seconds).
  await db.query("update device_stats set collected_at = now() - random() * interval '59 minutes' where location_id = $1", [locationId]);
  await db.query("analyze device_stats");
  const { networkStats, locationUserStats } = await import("../../lib/stats/service");
  const from = new Date(Date.now() - 3600_000);
  const timed = async (fn: () => Promise<unknown>) => {
    await fn(); // warm-up
    const t: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      await fn();
      t.push(performance.now() - t0);
    }
    return `median ${ms(percentile(t, 50))} ms, max ${ms(max(t))} ms`;
  };
  const samplesNote = `${fmtInt(Number(statRows[0].n))} samples of ${fmtInt(CONFIG_PEERS)} devices in the hour`;
  rows.push({ measure: "overview: totals and series of the last hour (GET /network/stats)", result: await timed(() => networkStats(from)), target: "-", details: samplesNote });
  rows.push({
    measure: "overview: connected users with per-device series (GET /network/{id}/stats/users)",
    result: await timed(() => locationUserStats(locationId, from)),
    target: "-",
    details: samplesNote,
  });
  return rows;
}

/** BENCH_GATEWAY_EXPLAIN=1: the plan of one ingest batch (same statement as lib/stats/ingest.ts), rolled back. */
async function explainIngest(db: pg.Client, locationId: number, batch: { public_key: string; upload: number; download: number; latest_handshake: number; endpoint: string }[], ctx: SuiteContext) {
  const src = readFileSync(join(ctx.root, "lib/stats/ingest.ts"), "utf8");
  const sql = /`(with input as[\s\S]*?)`/.exec(src)?.[1];
  if (!sql) return ctx.log("[gateway] EXPLAIN: statement not found in lib/stats/ingest.ts");
  await db.query("begin");
  try {
    const r = await db.query(`explain (analyze, buffers, timing) ${sql}`, [
      locationId,
      batch.map((s) => s.public_key),
      batch.map((s) => s.upload),
      batch.map((s) => s.download),
      batch.map((s) => s.latest_handshake),
      batch.map((s) => s.endpoint),
      new Date(),
    ]);
    ctx.log(`[gateway] EXPLAIN ANALYZE of one batch of ${batch.length}:\n${r.rows.map((x) => x["QUERY PLAN"]).join("\n")}`);
  } finally {
    await db.query("rollback");
  }
}

async function run(ctx: SuiteContext): Promise<Row[]> {
  await ensureBuild({ root: ctx.root, distDir: E2E_DIST_DIR, log: ctx.log });
  const unavailable = netTestsUnavailable();
  if (unavailable) ctx.log(`[gateway] peer-add latency row skipped: ${unavailable}`);
  const dir = makeTempDir("defguard-bench-gateway-");
  const res = new Resources();
  res.dirs.push(dir);
  let server: RunningServer | null = null;
  res.extra.push(() => stopConsoleSync(server));
  const onExit = () => res.cleanupSync();
  process.once("exit", onExit);
  let db: pg.Client | null = null;
  try {
    // The namespace and its link first: the console binds gRPC to the link's root end.
    const topo = unavailable ? null : await topology(res);
    const grpcPort = await freePort();
    const grpcHost = topo ? CONSOLE_HOST : "127.0.0.1";
    server = await startServer({
      root: ctx.root,
      entry: "server",
      distDir: E2E_DIST_DIR,
      dataDir: join(dir, "data"),
      logFile: join(dir, "server.log"),
      env: { DEFGUARD_GRPC_PORT: String(grpcPort), DEFGUARD_GRPC_HOST: grpcHost },
    });
    if (!server.dbPort || !server.adminPassword) throw new Error("no embedded PostgreSQL port or admin password in the server output");
    const secrets = JSON.parse(readFileSync(join(server.dataDir, "secrets.json"), "utf8")) as Record<string, string>;
    process.env.DATABASE_URL = `postgres://defguard:${encodeURIComponent(secrets.embeddedDbPassword)}@127.0.0.1:${server.dbPort}/defguard`;
    process.env.DEFGUARD_ENCRYPTION_KEY = secrets.encryptionKey;
    process.env.DEFGUARD_SECRET_KEY = secrets.secretKey;
    process.env.DEFGUARD_GATEWAY_SECRET = secrets.gatewaySecret;
    db = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await db.connect();
    const api = new Api(server.baseURL);
    await api.signIn("admin", server.adminPassword);
    const env: Env = { topo, grpcPort, ctx, server, api, db, res };
    const rows = await peerAddLatency(env, unavailable);
    return [...rows, ...(await configAndIngest(env))];
  } finally {
    await db?.end().catch(() => {});
    const { closeDb } = await import("../../lib/db");
    await closeDb().catch(() => {});
    await server?.stop().catch(() => {});
    for (const n of res.cleanupSync()) ctx.log(`[gateway] ${n}`);
    process.removeListener("exit", onExit);
    rmSync(dir, { recursive: true, force: true });
  }
}

const suite: Suite = {
  name: "gateway",
  description: `Gateway agent and console gRPC path: peer add latency with ${fmtInt(PRESENT)} peers present (root), full Config cost for ${fmtInt(CONFIG_PEERS)} peers, stats ingest rate`,
  run,
};
export default suite;
