/**
 * WireGuard at scale: 10,000 user devices of 100 users (written straight into the running
 * server's embedded database), then
 * - address assignment for all of them in a /16: POST /api/v1/network (the location's
 *   reconcileLocation), a PUT that widens the network (every address kept), a PUT that moves
 *   it (every address re-assigned), and reconcileLocation called in-process (rolled back);
 * - GET /api/v1/device (admin) with 10,000 devices: sequential requests, p50/p99, payload size;
 * - renderClientConfig for 10,000 devices in-process.
 * Nothing here asserts anything about time.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { ensureBuild, E2E_DIST_DIR } from "../../e2e/setup/build";
import { makeTempDir, startServer } from "../../e2e/setup/server";
import { generateKeyPair } from "../../lib/wireguard/keys";
import { renderClientConfig } from "../../lib/wireguard/config";
import { max, ms, percentile } from "../lib/stats";
import type { Row, Suite, SuiteContext } from "../lib/types";
import { cookieHeader, signIn, type Cookies } from "../lib/http";

const USERS = Number(process.env.BENCH_WG_USERS || 100);
const DEVICES = Number(process.env.BENCH_WG_DEVICES || 10_000);
const REQUESTS = Number(process.env.BENCH_WG_REQUESTS || 50);


async function api(baseURL: string, cookies: Cookies, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { cookie: cookieHeader(cookies) };
  if (method !== "GET") headers["x-xsrf-token"] = decodeURIComponent(cookies["XSRF-TOKEN"] ?? "");
  if (body !== undefined) headers["content-type"] = "application/json";
  const t0 = performance.now();
  const res = await fetch(`${baseURL}/api/v1${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const buf = Buffer.from(await res.arrayBuffer());
  const elapsed = performance.now() - t0;
  return { status: res.status, bytes: buf.length, text: buf.toString("utf8"), elapsed };
}

/** 100 users and 10,000 devices with real public keys, in multi-row inserts. */
async function seed(client: pg.Client, log: (m: string) => void): Promise<void> {
  const userIds: number[] = [];
  for (let i = 1; i <= USERS; i++) {
    const username = `wg${String(i).padStart(3, "0")}`;
    const r = await client.query<{ id: number }>(
      "INSERT INTO users (username, first_name, last_name, email) VALUES ($1, 'Bench', $2, $3) RETURNING id",
      [username, String(i), `${username}@bench.invalid`],
    );
    userIds.push(r.rows[0].id);
  }
  log(`[wireguard] ${USERS} users inserted; generating ${DEVICES} keys...`);
  const CHUNK = 1000;
  for (let k = 0; k < DEVICES; k += CHUNK) {
    const values: unknown[] = [];
    const rows: string[] = [];
    for (let j = k; j < Math.min(DEVICES, k + CHUNK); j++) {
      const n = values.length;
      rows.push(`($${n + 1}, $${n + 2}, $${n + 3})`);
      values.push(`device-${j}`, generateKeyPair().publicKey, userIds[j % userIds.length]);
    }
    await client.query(`INSERT INTO devices (name, wireguard_pubkey, user_id) VALUES ${rows.join(", ")}`, values);
  }
  log(`[wireguard] ${DEVICES} devices inserted`);
}

const location = (name: string, address: string) => ({
  name,
  address,
  endpoint: "vpn.bench.invalid",
  port: 51820,
  allowed_ips: "10.0.0.0/8",
  dns: "10.100.0.1",
  allowed_groups: [],
  keepalive_interval: 25,
  peer_disconnect_threshold: 300,
  acl_enabled: false,
  acl_default_allow: false,
  location_mfa_mode: "disabled",
});

/** reconcileLocation in this process against the server's database, inside a rolled-back transaction. */
async function reconcileInProcess(databaseUrl: string, locationId: number): Promise<{ ms: number; added: number }> {
  process.env.DATABASE_URL = databaseUrl;
  const { getDb, closeDb } = await import("../../lib/db");
  const { reconcileLocation, requireLocation } = await import("../../lib/locations/service");
  const { sql } = await import("drizzle-orm");
  const ROLLBACK = new Error("rollback");
  let out = { ms: NaN, added: 0 };
  try {
    await getDb().transaction(async (tx) => {
      await tx.execute(sql`delete from device_locations where location_id = ${locationId}`);
      const loc = await requireLocation(tx, locationId);
      const t0 = performance.now();
      const r = await reconcileLocation(tx, loc);
      out = { ms: performance.now() - t0, added: r.added.length };
      throw ROLLBACK;
    });
  } catch (e) {
    if (e !== ROLLBACK) throw e;
  } finally {
    await closeDb();
  }
  return out;
}

function renderConfigs(n: number): { ms: number; bytes: number } {
  const peerKey = generateKeyPair().publicKey;
  const t0 = performance.now();
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const text = renderClientConfig({
      privateKey: null,
      addresses: [`10.100.${(i + 2) >> 8}.${(i + 2) & 255}`, `fd00::${(i + 2).toString(16)}`],
      dns: "10.100.0.1, 1.1.1.1",
      peer: { publicKey: peerKey, allowedIps: ["10.0.0.0/8", "fd00::/64"], endpoint: "vpn.bench.invalid", port: 51820, keepalive: 25 },
    });
    bytes += text.length;
  }
  return { ms: performance.now() - t0, bytes };
}

const dash = "-";

async function run(ctx: SuiteContext): Promise<Row[]> {
  const rows: Row[] = [];
  // Pure rendering first: it needs no server.
  renderConfigs(500); // warm-up
  const render = renderConfigs(DEVICES);
  rows.push({
    measurement: "renderClientConfig (in-process, dual stack + DNS)",
    n: DEVICES,
    "total ms": ms(render.ms),
    "per item µs": ((render.ms * 1000) / DEVICES).toFixed(1),
    "p50 ms": dash,
    "p99 ms": dash,
    "max ms": dash,
    "payload KiB": (render.bytes / 1024).toFixed(0),
  });

  await ensureBuild({ root: ctx.root, distDir: E2E_DIST_DIR, log: ctx.log });
  const dir = makeTempDir("defguard-bench-wireguard-");
  const server = await startServer({
    root: ctx.root,
    entry: "server",
    distDir: E2E_DIST_DIR,
    dataDir: join(dir, "data"),
    logFile: join(dir, "server.log"),
  });
  try {
    if (!server.dbPort) throw new Error("no embedded PostgreSQL port in the server output");
    if (!server.adminPassword) throw new Error("no generated admin password in the server output");
    const secrets = JSON.parse(readFileSync(join(server.dataDir, "secrets.json"), "utf8")) as { embeddedDbPassword: string };
    const dbConfig = { host: "127.0.0.1", port: server.dbPort, user: "defguard", password: secrets.embeddedDbPassword, database: "defguard" };
    const client = new pg.Client(dbConfig);
    await client.connect();
    try {
      await seed(client, ctx.log);
      const cookies = await signIn(server.baseURL, "admin", server.adminPassword);

      // 1. Assignment through the API.
      ctx.log("[wireguard] POST /network (assigns every device)...");
      const created = await api(server.baseURL, cookies, "POST", "/network", location("bench", "10.100.0.1/16"));
      if (created.status !== 201) throw new Error(`POST /network → ${created.status}: ${created.text.slice(0, 300)}`);
      const loc = JSON.parse(created.text) as { id: number };
      const count = async () =>
        Number((await client.query("select count(*)::int n from device_locations where location_id = $1", [loc.id])).rows[0].n);
      const assigned = await count();
      if (assigned !== DEVICES) throw new Error(`expected ${DEVICES} assigned devices, found ${assigned}`);
      const row = (measurement: string, n: number, totalMs: number, extra: Partial<Row> = {}): Row => ({
        measurement,
        n,
        "total ms": ms(totalMs),
        "per item µs": ((totalMs * 1000) / n).toFixed(1),
        "p50 ms": dash,
        "p99 ms": dash,
        "max ms": dash,
        "payload KiB": dash,
        ...extra,
      });
      rows.push(row("POST /network 10.100.0.1/16 → assign all (HTTP + reconcileLocation)", DEVICES, created.elapsed));

      // The first request also pays for loading the route: a second location shows the warm cost.
      ctx.log("[wireguard] POST /network again (second location, warm server)...");
      const second = await api(server.baseURL, cookies, "POST", "/network", location("bench-2", "10.150.0.1/16"));
      if (second.status !== 201) throw new Error(`POST /network (second) → ${second.status}: ${second.text.slice(0, 300)}`);
      rows.push(row("POST /network 10.150.0.1/16, second location (warm)", DEVICES, second.elapsed));
      const loc2 = JSON.parse(second.text) as { id: number };
      const del = await api(server.baseURL, cookies, "DELETE", `/network/${loc2.id}`);
      if (del.status !== 200) throw new Error(`DELETE /network/${loc2.id} → ${del.status}`);

      ctx.log("[wireguard] PUT /network/{id} widen /16 → /15 (every address kept)...");
      const widen = await api(server.baseURL, cookies, "PUT", `/network/${loc.id}`, location("bench", "10.100.0.1/15"));
      if (widen.status !== 200) throw new Error(`PUT widen → ${widen.status}: ${widen.text.slice(0, 300)}`);
      rows.push(row("PUT /network/{id} /16 → /15 (all kept)", DEVICES, widen.elapsed));

      ctx.log("[wireguard] PUT /network/{id} move to 10.200.0.1/16 (every address re-assigned)...");
      const move = await api(server.baseURL, cookies, "PUT", `/network/${loc.id}`, location("bench", "10.200.0.1/16"));
      if (move.status !== 200) throw new Error(`PUT move → ${move.status}: ${move.text.slice(0, 300)}`);
      const moved = await client.query("select count(*)::int n from device_locations where location_id = $1 and ips[1] like '10.200.%'", [loc.id]);
      if (Number(moved.rows[0].n) !== DEVICES) throw new Error(`expected ${DEVICES} moved devices, found ${moved.rows[0].n}`);
      rows.push(row("PUT /network/{id} 10.100/15 → 10.200/16 (all moved)", DEVICES, move.elapsed));

      ctx.log("[wireguard] reconcileLocation in-process (rolled back)...");
      const url = `postgres://${dbConfig.user}:${encodeURIComponent(dbConfig.password)}@${dbConfig.host}:${dbConfig.port}/${dbConfig.database}`;
      const direct = await reconcileInProcess(url, loc.id);
      if (direct.added !== DEVICES) throw new Error(`in-process reconcile added ${direct.added}, expected ${DEVICES}`);
      rows.push(row("reconcileLocation in-process, 10,000 new (no HTTP)", DEVICES, direct.ms));

      // 2. GET /device with 10,000 devices.
      ctx.log(`[wireguard] GET /device × ${REQUESTS}...`);
      const warm = await api(server.baseURL, cookies, "GET", "/device");
      if (warm.status !== 200) throw new Error(`GET /device → ${warm.status}`);
      const listed = (JSON.parse(warm.text) as unknown[]).length;
      if (listed !== DEVICES) throw new Error(`GET /device listed ${listed}, expected ${DEVICES}`);
      const latencies: number[] = [];
      let bytes = 0;
      for (let i = 0; i < REQUESTS; i++) {
        const r = await api(server.baseURL, cookies, "GET", "/device");
        if (r.status !== 200) throw new Error(`GET /device → ${r.status}`);
        latencies.push(r.elapsed);
        bytes = r.bytes;
      }
      rows.push({
        measurement: `GET /api/v1/device (${REQUESTS} sequential requests)`,
        n: listed,
        "total ms": ms(latencies.reduce((a, b) => a + b, 0)),
        "per item µs": ((percentile(latencies, 50) * 1000) / listed).toFixed(1),
        "p50 ms": ms(percentile(latencies, 50)),
        "p99 ms": ms(percentile(latencies, 99)),
        "max ms": ms(max(latencies)),
        "payload KiB": (bytes / 1024).toFixed(0),
      });
    } finally {
      await client.end();
    }
    return rows;
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const suite: Suite = {
  name: "wireguard",
  description: `${DEVICES} user devices of ${USERS} users: address assignment in a /16, GET /api/v1/device, client config rendering`,
  run,
};
export default suite;
