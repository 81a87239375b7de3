/**
 * Operating the console against an external PostgreSQL that this test starts itself (a
 * separate server process, as in the docker-compose topology): the console waits with backoff
 * while the database is not there yet, answers 503 from /api/v1/health while it is down and
 * recovers by itself; GET /metrics with a bearer token; JSON log lines with request ids; and a
 * SIGTERM during 50 concurrent requests with a connected gateway: every request is answered,
 * the gateway's disconnect is recorded, the process exits 0.
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { request as httpRequest, type ClientRequest } from "node:http";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import pg from "pg";
import { expect, request, test, type APIRequestContext } from "@playwright/test";
import { startPostgres, type ExternalPostgres } from "./setup/postgres";
import { freePort, makeTempDir, readLog, startServer, type RunningServer } from "./setup/server";
import { gatewayProtos } from "./support";

const ADMIN_PASSWORD = "Admin123!x";
const METRICS_TOKEN = "metrics-" + randomBytes(12).toString("hex");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function gatewayUpdates(port: number, token: string, hostname: string) {
  const protos = gatewayProtos();
  const client = new protos.gateway.GatewayService(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const md = new grpc.Metadata();
  md.set("authorization", token);
  md.set("hostname", hostname);
  md.set("defguard-component-version", "1.5.0");
  const stream = (client as unknown as { Updates: (req: object, md: grpc.Metadata) => grpc.ClientReadableStream<unknown> }).Updates({}, md);
  const state = { ended: false, error: null as grpc.ServiceError | null };
  stream.on("data", () => {});
  stream.on("end", () => (state.ended = true));
  stream.on("error", (e: grpc.ServiceError) => (state.error = e));
  return { state, close: () => (stream.cancel(), client.close()) };
}

async function healthStatus(baseURL: string): Promise<number | string> {
  try {
    const r = await fetch(`${baseURL}/api/v1/health`, { signal: AbortSignal.timeout(5000) });
    await r.arrayBuffer();
    return r.status;
  } catch (err) {
    return String((err as { cause?: { code?: string } }).cause?.code ?? err);
  }
}

test("external PostgreSQL: wait at start-up, 503 while down, metrics, JSON logs, graceful SIGTERM under load", async () => {
  test.setTimeout(300_000);
  const dir = makeTempDir("defguard-ops-");
  const dbPort = await freePort();
  const dbPassword = randomBytes(12).toString("hex");
  const databaseUrl = `postgres://defguard:${dbPassword}@127.0.0.1:${dbPort}/defguard`;
  let db: ExternalPostgres | null = null;
  let server: RunningServer | null = null;
  let api: APIRequestContext | null = null;
  let gateway: ReturnType<typeof gatewayUpdates> | null = null;
  const logFile = join(dir, "console.log");
  let failed = true;
  try {
    // 1. The console starts before its database exists: it waits, saying so, with growing delays.
    const starting = startServer({
      entry: "import",
      dataDir: join(dir, "data"),
      logFile,
      env: {
        DATABASE_URL: databaseUrl,
        DEFGUARD_DEFAULT_ADMIN_PASSWORD: ADMIN_PASSWORD,
        DEFGUARD_METRICS_TOKEN: METRICS_TOKEN,
        DEFGUARD_LOG_FORMAT: "json",
        DEFGUARD_LOG_REQUESTS: "1",
      },
    });
    const waits = () => (server?.log() ?? readLog(logFile)).split("\n").filter((l) => l.includes("waiting for the database"));
    await expect.poll(() => waits().length, { timeout: 60_000 }).toBeGreaterThanOrEqual(3);
    const lines = waits().map((l) => JSON.parse(l) as { msg: string; level: string; component: string });
    expect(lines[0].msg).toContain(`waiting for the database 127.0.0.1:${dbPort}/defguard`);
    expect(lines[0].msg).not.toContain(dbPassword);
    const delays = lines.map((l) => Number(/retrying in ([\d.]+) s/.exec(l.msg)?.[1]));
    expect(delays[1]).toBeGreaterThan(delays[0]);
    expect(delays[2]).toBeGreaterThan(delays[1]);

    db = await startPostgres(join(dir, "pg"), dbPassword, dbPort);
    server = await starting;
    expect(server.dbPort, "no embedded PostgreSQL with DATABASE_URL").toBeNull();
    expect(server.log()).toContain("is reachable (after");
    const base = server.baseURL;

    // 2. The database goes away while the console runs: 503, then back to 200 by itself.
    await db.stop();
    db = null;
    await expect.poll(() => healthStatus(base), { timeout: 20_000 }).toBe(503);
    db = await startPostgres(join(dir, "pg"), dbPassword, dbPort);
    await expect.poll(() => healthStatus(base), { timeout: 30_000 }).toBe(200);

    // 3. Sign-ins, a location with a connected gateway, then the metrics.
    api = await request.newContext({ baseURL: base });
    expect((await api.post("/api/v1/auth", { data: { username: "admin", password: "wrong-password" } })).status()).toBe(401);
    const signIn = await api.post("/api/v1/auth", { data: { username: "admin", password: ADMIN_PASSWORD } });
    expect(signIn.status()).toBe(200);
    const xsrf = (await api.storageState()).cookies.find((c) => c.name === "XSRF-TOKEN")?.value ?? "";
    const loc = await api.post("/api/v1/network", {
      data: { name: "Ops", address: "198.18.7.1/24", endpoint: "vpn.example.com", port: 51820, allowed_ips: "0.0.0.0/0", allowed_groups: [] },
      headers: { "x-xsrf-token": xsrf },
    });
    expect(loc.status(), await loc.text()).toBe(201);
    const location = (await loc.json()) as { id: number };
    const { token } = (await (await api.get(`/api/v1/network/${location.id}/token`)).json()) as { token: string };
    gateway = gatewayUpdates(server.grpcPort, token, "ops-gw");
    const sql = new pg.Client({ connectionString: databaseUrl });
    sql.on("error", () => {});
    await sql.connect();
    const connected = async () =>
      (await sql.query("select connected from gateways where location_id = $1 and hostname = 'ops-gw'", [location.id])).rows[0]?.connected ?? null;
    await expect.poll(connected, { timeout: 15_000 }).toBe(true);

    expect((await fetch(`${base}/metrics`)).status).toBe(401);
    expect((await fetch(`${base}/metrics`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
    const scrape = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get("content-type")).toContain("text/plain");
    const text = await scrape.text();
    expect(text).toMatch(/defguard_http_requests_total\{method="GET",route="\/api\/v1\/health",status="503"\} \d+/);
    expect(text).toMatch(/defguard_http_requests_total\{method="GET",route="\/api\/v1\/network\/\{id\}\/token",status="200"\} 1/);
    expect(text).toMatch(/defguard_http_request_duration_seconds_bucket\{le="0\.1",method="POST",route="\/api\/v1\/auth",status="401"\} \d+/);
    expect(text).toContain('defguard_sign_ins_total{result="failure"} 1');
    expect(text).toContain('defguard_sign_ins_total{result="success"} 1');
    expect(text).toContain('defguard_gateways_connected{location="Ops"} 1');
    expect(text).toContain('defguard_peers{location="Ops"} 0');
    expect(text).toMatch(/defguard_db_pool_connections \d+/);
    expect(text).toMatch(/defguard_process_resident_memory_bytes \d+/);
    expect(text).toContain("# TYPE defguard_gateway_propagation_seconds histogram");
    expect(text).toContain("# TYPE defguard_job_runs_total counter");
    expect(text).toContain("# TYPE defguard_stats_samples_ingested_total counter");
    expect(text).not.toContain(server.baseURL + "/api/v1/user/admin");

    // 4. JSON lines with request ids: a proxy's X-Request-Id is echoed and logged.
    const traced = await fetch(`${base}/api/v1/health`, { headers: { "x-request-id": "ops-trace-42" } });
    expect(traced.headers.get("x-request-id")).toBe("ops-trace-42");
    await expect
      .poll(() => server!.log().split("\n").find((l) => l.includes("ops-trace-42")) ?? "", { timeout: 5000 })
      .toContain('"request_id":"ops-trace-42"');
    const access = JSON.parse(server.log().split("\n").find((l) => l.includes("ops-trace-42"))!);
    expect(access).toMatchObject({ level: "info", component: "http", msg: expect.stringMatching(/^GET \/api\/v1\/health 200 /) });
    const listening = server.log().split("\n").find((l) => l.includes("console listening"))!;
    expect(JSON.parse(listening)).toMatchObject({ level: "info", component: "defguard" });

    // 5. SIGTERM while 50 requests are in flight: every one is answered, none is reset.
    // Each request sends its headers and half its body now (so the server has accepted it and
    // is reading it), and the rest after the SIGTERM: all 50 are in flight during the shutdown.
    const port = Number(new URL(base).port);
    const inflight = Array.from({ length: 50 }, (_, i) => {
      const body = JSON.stringify({ username: `nobody${i}`, password: "not-the-password" });
      const half = Math.floor(body.length / 2);
      let req!: ClientRequest;
      const answer = new Promise<{ status: number; body: string }>((res) => {
        req = httpRequest(
          { host: "localhost", port, path: "/api/v1/auth", method: "POST", headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) } },
          (r) => {
            let text = "";
            r.on("data", (c) => (text += c));
            r.on("end", () => res({ status: r.statusCode ?? 0, body: text }));
            r.on("error", (e: NodeJS.ErrnoException) => res({ status: 0, body: e.code ?? e.message }));
          },
        );
        req.on("error", (e: NodeJS.ErrnoException) => res({ status: 0, body: e.code ?? e.message }));
        req.write(body.slice(0, half));
      });
      return { answer, finish: () => req.end(body.slice(half)) };
    });
    await sleep(1500);
    server.child.kill("SIGTERM");
    await sleep(300);
    for (const r of inflight) r.finish();
    const results = await Promise.all(inflight.map((r) => r.answer));
    const exit = await new Promise<number | null>((res) =>
      server!.child.exitCode !== null ? res(server!.child.exitCode) : server!.child.once("exit", (code) => res(code)),
    );
    expect(results.filter((r) => r.status === 0), "requests without an answer").toEqual([]);
    for (const r of results) expect([401, 429]).toContain(r.status);
    expect(exit).toBe(0);
    // The gateway was told (its stream ended) and its disconnect was recorded before the pool closed.
    await expect.poll(() => gateway!.state.ended || gateway!.state.error !== null, { timeout: 5000 }).toBe(true);
    expect(await connected()).toBe(false);
    const ev = await sql.query("select count(*)::int n from activity_log where event = 'gateway_disconnected'");
    expect(ev.rows[0].n).toBe(1);
    await sql.end();
    const log = server.log();
    expect(log).not.toContain("recording disconnect failed");
    expect(log).not.toContain("the database system is shutting down");
    expect(log).toContain("SIGTERM: shutting down");
    failed = false;
  } finally {
    gateway?.close();
    await api?.dispose().catch(() => {});
    if (server) await server.stop();
    if (failed) console.log(`--- console log ---\n${readLog(logFile).split("\n").slice(-80).join("\n")}`);
    if (db) await db.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
