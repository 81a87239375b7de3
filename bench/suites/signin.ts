/**
 * Sign-in throughput: one running server, N concurrent clients doing POST /api/v1/auth for a
 * fixed time (bounded by a request count), spread over 20 users created directly in the
 * embedded database (there is no user-creation API yet). Successful sign-ins never count
 * towards the lockout, so the users can sign in again and again.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import pg from "pg";
import { ensureBuild, E2E_DIST_DIR } from "../../e2e/setup/build";
import { makeTempDir, startServer } from "../../e2e/setup/server";
import { hashPassword } from "../../lib/auth/password";
import { max, ms, percentile } from "../lib/stats";
import type { Row, Suite, SuiteContext } from "../lib/types";

const USERS = 20;
const SECONDS = Number(process.env.BENCH_SIGNIN_SECONDS || 10);
const MAX_REQUESTS = Number(process.env.BENCH_SIGNIN_MAX_REQUESTS || 5000);
const CONCURRENCY = (process.env.BENCH_SIGNIN_CONCURRENCY || "1,8").split(",").map(Number);
const PASSWORD = "Bench-Passw0rd!";

interface Result {
  latencies: number[];
  statuses: Map<string, number>;
  elapsedMs: number;
}

async function createUsers(dataDir: string, dbPort: number): Promise<string[]> {
  const secrets = JSON.parse(readFileSync(join(dataDir, "secrets.json"), "utf8")) as { embeddedDbPassword: string };
  const client = new pg.Client({
    host: "127.0.0.1",
    port: dbPort,
    user: "defguard",
    password: secrets.embeddedDbPassword,
    database: "defguard",
  });
  await client.connect();
  const names: string[] = [];
  try {
    for (let i = 1; i <= USERS; i++) {
      const username = `bench${String(i).padStart(2, "0")}`;
      await client.query(
        "INSERT INTO users (username, password_hash, first_name, last_name, email) VALUES ($1, $2, $3, $4, $5)",
        [username, await hashPassword(PASSWORD), "Bench", String(i), `${username}@bench.invalid`],
      );
      names.push(username);
    }
  } finally {
    await client.end();
  }
  return names;
}

async function signIn(baseURL: string, username: string): Promise<string> {
  try {
    const res = await fetch(`${baseURL}/api/v1/auth`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ username, password: PASSWORD }),
    });
    await res.arrayBuffer();
    return String(res.status);
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
}

async function load(baseURL: string, users: string[], concurrency: number): Promise<Result> {
  const latencies: number[] = [];
  const statuses = new Map<string, number>();
  let issued = 0;
  const t0 = performance.now();
  const deadline = t0 + SECONDS * 1000;
  const worker = async () => {
    while (performance.now() < deadline && issued < MAX_REQUESTS) {
      const user = users[issued++ % users.length];
      const s = performance.now();
      const status = await signIn(baseURL, user);
      latencies.push(performance.now() - s);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { latencies, statuses, elapsedMs: performance.now() - t0 };
}

async function run(ctx: SuiteContext): Promise<Row[]> {
  await ensureBuild({ root: ctx.root, distDir: E2E_DIST_DIR, log: ctx.log });
  const dir = makeTempDir("defguard-bench-signin-");
  const server = await startServer({
    root: ctx.root,
    entry: "server",
    distDir: E2E_DIST_DIR,
    dataDir: join(dir, "data"),
    logFile: join(dir, "server.log"),
  });
  try {
    if (!server.dbPort) throw new Error("no embedded PostgreSQL port in the server output");
    const users = await createUsers(server.dataDir, server.dbPort);
    // Warm-up: every user once (also checks the fixtures work).
    for (const u of users) {
      const status = await signIn(server.baseURL, u);
      if (status !== "200") throw new Error(`warm-up sign-in as ${u} returned ${status}`);
    }
    const rows: Row[] = [];
    for (const c of CONCURRENCY) {
      ctx.log(`[signin] ${c} client(s) for up to ${SECONDS} s / ${MAX_REQUESTS} requests...`);
      const r = await load(server.baseURL, users, c);
      const ok = r.statuses.get("200") ?? 0;
      const other = [...r.statuses].filter(([s]) => s !== "200").map(([s, n]) => `${s}×${n}`);
      rows.push({
        clients: c,
        users: users.length,
        requests: r.latencies.length,
        "seconds": (r.elapsedMs / 1000).toFixed(1),
        "sign-ins/s": ((ok / r.elapsedMs) * 1000).toFixed(1),
        "p50 ms": ms(percentile(r.latencies, 50)),
        "p99 ms": ms(percentile(r.latencies, 99)),
        "max ms": ms(max(r.latencies)),
        "non-200": other.length ? other.join(", ") : "0",
      });
    }
    return rows;
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const suite: Suite = {
  name: "signin",
  description: `POST /api/v1/auth (argon2id verify + session) from concurrent clients over ${USERS} users`,
  run,
};
export default suite;
