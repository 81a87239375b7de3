/**
 * The production process's footprint: `node scripts/start.mjs` (build skipped) imports the
 * compiled dist/server.js into its own process, so the console is ONE Node.js process.
 *
 * 1. Idle memory with 1,000 devices and one gateway: 100 users with 10 devices each on one
 *    location (through the API), a fake gateway holding its Config and Updates stream; after
 *    a settle period (longer than the console's idle collection, DEFGUARD_IDLE_GC_SECONDS), the
 *    console process's RSS sampled once a second (VmRSS of the process itself; the embedded
 *    PostgreSQL runs in its own processes, reported apart). Also the RSS right after the load,
 *    before the idle collection.
 * 2. Restart to API: SIGTERM, wait for exit, start again; from the SIGTERM to the first 200 of
 *    an authenticated API call (GET /api/v1/network with the session made before the restart),
 *    and from spawn to that 200, with the CPU time the console process used until then (user +
 *    system, all its threads; less distorted by a loaded machine than the wall time): as the
 *    console's start-up trace (DEFGUARD_STARTUP_TRACE=1) reports it when its first request,
 *    that GET, is answered; read from /proc right after the 200 otherwise (which then also
 *    counts the gateway side starting meanwhile). The trace lines are in the logs. Once for
 *    a console on an external database (DATABASE_URL, the first console's PostgreSQL), once for
 *    the console that runs the embedded one.
 * Targets (README "Lean production process"): RSS < 200 MB idle, restart to API < 1.5 s.
 */
import { generateKeyPairSync } from "node:crypto";
import { readFileSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { ensureBuild, E2E_DIST_DIR } from "../../e2e/setup/build";
import { makeTempDir, sleep, startServer, type RunningServer, type StartOptions } from "../../e2e/setup/server";
import { Api } from "../../e2e/net/api";
import { loadGatewayService } from "../../gateway/proto";
import { max, median, ms } from "../lib/stats";
import type { Row, Suite, SuiteContext } from "../lib/types";

const USERS = 100;
const DEVICES_PER_USER = 10;
const SETTLE_S = Number(process.env.BENCH_FOOTPRINT_SETTLE_S || 45);
const SAMPLE_S = Number(process.env.BENCH_FOOTPRINT_SAMPLE_S || 10);
const RESTARTS = Number(process.env.BENCH_FOOTPRINT_RESTARTS || 3);
const PASSWORD = "Bench-Passw0rd!";
/** BENCH_FOOTPRINT_ENTRY=server measures server.ts under tsx instead (for comparison). */
const ENTRY: "start" | "server" = process.env.BENCH_FOOTPRINT_ENTRY === "server" ? "server" : "start";

/** CPU time (user + system, ms) the process `pid` has used so far (Linux /proc, USER_HZ 100). */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Descendant PIDs of `pid` and their command names (Linux /proc). */
function descendants(pid: number): { pid: number; comm: string }[] {
  const parent = new Map<number, number>();
  const comm = new Map<number, string>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      parent.set(Number(name), Number(stat.slice(close + 2).split(" ")[1]));
      comm.set(Number(name), stat.slice(stat.indexOf("(") + 1, close));
    } catch {
      /* gone */
    }
  }
  const out: { pid: number; comm: string }[] = [];
  const walk = (p: number) => {
    for (const [child, par] of parent) if (par === p) {
      out.push({ pid: child, comm: comm.get(child) ?? "?" });
      walk(child);
    }
  };
  walk(pid);
  return out;
}

function wireguardKey(): string {
  const { publicKey } = generateKeyPairSync("x25519");
  return publicKey.export({ type: "spki", format: "der" }).subarray(-32).toString("base64");
}

async function pool<T>(items: T[], width: number, fn: (item: T) => Promise<unknown>) {
  let i = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (i < items.length) await fn(items[i++]);
    }),
  );
}

/** A fake gateway: Config once, then an open Updates stream (what a real agent holds). */
async function connectGateway(port: number, token: string) {
  const Service = loadGatewayService();
  const client = new Service(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as grpc.Client & Record<string, Function>;
  const md = new grpc.Metadata();
  md.set("authorization", token);
  md.set("hostname", "bench-gw");
  md.set("defguard-component-version", "1.5.0");
  const config = await new Promise<{ peers: unknown[] }>((res, rej) =>
    client.Config({ name: "bench-gw" }, md, (err: Error | null, c: { peers: unknown[] }) => (err ? rej(err) : res(c))),
  );
  const stream = client.Updates({}, md) as grpc.ClientReadableStream<unknown>;
  stream.on("error", () => {});
  return { peers: config.peers.length, close: () => (stream.cancel(), client.close()) };
}

async function apiReady(baseURL: string, cookie: string, deadline: number): Promise<void> {
  for (;;) {
    try {
      const r = await fetch(`${baseURL}/api/v1/network`, { headers: { cookie }, signal: AbortSignal.timeout(2000) });
      if (r.status === 200) return;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) throw new Error("the API did not answer 200 after the restart");
    await sleep(5);
  }
}

async function run(ctx: SuiteContext): Promise<Row[]> {
  await ensureBuild({ root: ctx.root, distDir: E2E_DIST_DIR, log: ctx.log });
  const dir = makeTempDir("defguard-bench-footprint-");
  let server: RunningServer | null = null;
  let external: RunningServer | null = null;
  let gateway: Awaited<ReturnType<typeof connectGateway>> | null = null;
  const common = {
    root: ctx.root,
    entry: ENTRY,
    distDir: E2E_DIST_DIR,
    dataDir: join(dir, "data"),
    env: { DEFGUARD_SKIP_BUILD: "1", DEFGUARD_DEFAULT_ADMIN_PASSWORD: PASSWORD },
    pollMs: 5,
  };
  try {
    server = await startServer({ ...common, logFile: join(dir, "server-0.log") });
    const nodeChildren = descendants(server.pid).filter((p) => p.comm === "node" || p.comm.startsWith("node"));
    ctx.log(`[footprint] console pid ${server.pid}; node processes below it: ${nodeChildren.length}`);

    const api = new Api(server.baseURL);
    await api.signIn("admin", PASSWORD);
    const location = await api.ok<{ id: number }>("POST", "/network", {
      name: "bench",
      address: "10.90.0.1/16",
      endpoint: "vpn.example.com",
      port: 51820,
      allowed_ips: "0.0.0.0/0",
      allowed_groups: [],
    });
    const t0 = performance.now();
    const users = Array.from({ length: USERS }, (_, i) => `fp${String(i).padStart(3, "0")}`);
    await pool(users, 4, (u) => api.ok("POST", "/user", { username: u, first_name: "Foot", last_name: "Print", email: `${u}@example.com`, phone: null }));
    const devices = users.flatMap((u) => Array.from({ length: DEVICES_PER_USER }, (_, d) => ({ u, d })));
    await pool(devices, 4, ({ u, d }) => api.ok("POST", `/device/${u}`, { name: `${u}-d${d}`, wireguard_pubkey: wireguardKey() }));
    ctx.log(`[footprint] ${USERS} users, ${devices.length} devices in ${ms(performance.now() - t0)} ms`);
    const { token } = await api.ok<{ token: string }>("GET", `/network/${location.id}/token`);
    gateway = await connectGateway(server.grpcPort, token);
    if (gateway.peers < devices.length) throw new Error(`the gateway got ${gateway.peers} peers, expected ${devices.length}`);

    const afterLoad = rssMb(server.pid);
    ctx.log(`[footprint] RSS right after the load ${afterLoad.toFixed(0)} MB; idle ${SETTLE_S} s, then RSS once a second for ${SAMPLE_S} s`);
    await sleep(SETTLE_S * 1000);
    const samples: number[] = [];
    for (let i = 0; i < SAMPLE_S; i++) {
      samples.push(rssMb(server.pid));
      await sleep(1000);
    }
    const pg = descendants(server.pid).filter((p) => p.comm.startsWith("postgres"));
    const pgRss = pg.reduce((sum, p) => {
      try {
        return sum + rssMb(p.pid);
      } catch {
        return sum;
      }
    }, 0);
    gateway.close();
    gateway = null;

    // Restart to API, with the session made before (sessions live in the database).
    const signIn = await fetch(`${server.baseURL}/api/v1/auth`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username: "admin", password: PASSWORD }),
    });
    const cookie = signIn.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
    /** Restarts `proc` RESTARTS times; returns it running again and the timings. */
    const restarts = async (label: string, proc: RunningServer, opts: Omit<StartOptions, "logFile">) => {
      const restart: number[] = [];
      const spawnToApi: number[] = [];
      const stops: number[] = [];
      const cpu: number[] = [];
      for (let i = 1; i <= RESTARTS; i++) {
        const s0 = performance.now();
        stops.push(await proc.stop());
        const spawned = performance.now();
        let pid = 0;
        const starting = startServer({
          ...opts,
          env: { ...opts.env, DEFGUARD_STARTUP_TRACE: "1" },
          port: proc.port,
          grpcPort: proc.grpcPort,
          logFile: join(dir, `${label}-${i}.log`),
          pollMs: 1000,
          onSpawn: (p) => (pid = p),
        });
        await apiReady(`http://localhost:${proc.port}`, cookie, Date.now() + 60_000);
        const done = performance.now();
        const afterApi = cpuMs(pid);
        proc = await starting;
        // The trace's CPU at the first answer, when that first request was our GET.
        const traced = /first request: GET \/api\/v1\/network\n[\s\S]*?\(cpu (\d+) ms\) first request answered: 200/.exec(proc.log());
        cpu.push(traced ? Number(traced[1]) : afterApi);
        restart.push(done - s0);
        spawnToApi.push(done - spawned);
        const ready = /\(ready in ([^)]*)\)/.exec(proc.log())?.[1] ?? "?";
        ctx.log(`[footprint] ${label} restart ${i}/${RESTARTS}: SIGTERM to API 200 ${ms(done - s0)} ms (spawn to API ${ms(done - spawned)} ms, console CPU ${cpu[cpu.length - 1]} ms; server: ready in ${ready})`);
      }
      return { proc, restart, spawnToApi, stops, cpu };
    };

    // External database (as with DATABASE_URL in production): a second console on the first
    // one's PostgreSQL, restarted alone.
    const secrets = JSON.parse(readFileSync(join(server.dataDir, "secrets.json"), "utf8")) as Record<string, string>;
    const externalOpts = {
      ...common,
      dataDir: join(dir, "data-ext"),
      env: {
        ...common.env,
        DATABASE_URL: `postgres://defguard:${encodeURIComponent(secrets.embeddedDbPassword)}@127.0.0.1:${server.dbPort}/defguard`,
        DEFGUARD_SECRET_KEY: secrets.secretKey,
        DEFGUARD_GATEWAY_SECRET: secrets.gatewaySecret,
        DEFGUARD_YUBIBRIDGE_SECRET: secrets.workerSecret,
        DEFGUARD_ENCRYPTION_KEY: secrets.encryptionKey,
      },
    };
    external = await startServer({ ...externalOpts, logFile: join(dir, "ext-0.log") });
    const ext = await restarts("external-db", external, externalOpts);
    external = ext.proc;
    await external.stop();
    external = null;

    const emb = await restarts("embedded-db", server, common);
    server = emb.proc;
    return [
      {
        measure: `console RSS, idle, ${devices.length} devices, 1 gateway (MB)`,
        median: median(samples).toFixed(1),
        max: max(samples).toFixed(1),
        note: `right after creating them ${afterLoad.toFixed(0)} MB; ${ENTRY === "start" ? "node scripts/start.mjs → dist/server.js" : "server.ts under tsx"}; one process (node processes under it: ${nodeChildren.length}); embedded PostgreSQL apart: ${pgRss.toFixed(0)} MB in ${pg.length} processes`,
      },
      ...[
        ["external PostgreSQL (DATABASE_URL)", ext],
        ["embedded PostgreSQL (stopped and started with the console)", emb],
      ].flatMap(([what, r]) => {
        const t = r as typeof ext;
        return [
          { measure: `restart, ${what as string}: SIGTERM → first 200 of GET /api/v1/network (ms)`, median: ms(median(t.restart)), max: ms(max(t.restart)), note: `${RESTARTS} restarts, session made before kept` },
          { measure: "  of which spawn → API 200 (ms)", median: ms(median(t.spawnToApi)), max: ms(max(t.spawnToApi)), note: "" },
          { measure: "  console CPU time, spawn → API 200 (ms)", median: ms(median(t.cpu)), max: ms(max(t.cpu)), note: "user + system, all threads, at the first answer (start-up trace)" },
          { measure: "  of which clean stop (ms)", median: ms(median(t.stops)), max: ms(max(t.stops)), note: "" },
        ];
      }),
    ];
  } finally {
    gateway?.close();
    if (external) await external.stop();
    if (server) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const suite: Suite = {
  name: "footprint",
  description: "production process (node scripts/start.mjs → compiled dist/server.js): idle RSS with 1,000 devices and one gateway; restart to API",
  run,
};
export default suite;
