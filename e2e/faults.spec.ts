/**
 * Faults the console survives (embedded PostgreSQL): while an admin keeps creating groups,
 * the postmaster is killed with -9, then with -TERM, then the console itself with -9. The
 * supervisor restarts PostgreSQL and meanwhile requests answer 503 {msg} and health says
 * database:false; a new start after the console's crash stops the orphaned server it left
 * and comes up by itself; every group whose creation was acknowledged (201) is there at the end.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { makeTempDir, pidAlive, sleep, startServer, type RunningServer } from "./setup/server";

const ADMIN_PASSWORD = "Admin123!x";

/** A fetch client with a cookie jar, sending X-XSRF-TOKEN on unsafe methods. */
class Client {
  private cookies = new Map<string, string>();
  constructor(readonly baseURL: string) {}
  async send(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
    const headers: Record<string, string> = { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ") };
    if (body !== undefined) headers["content-type"] = "application/json";
    const xsrf = this.cookies.get("XSRF-TOKEN");
    if (xsrf && method !== "GET") headers["x-xsrf-token"] = xsrf;
    const res = await fetch(`${this.baseURL}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair.indexOf("=");
      this.cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text);
    } catch {
      json = { text };
    }
    return { status: res.status, json };
  }
  static async signedIn(baseURL: string): Promise<Client> {
    const c = new Client(baseURL);
    const r = await c.send("POST", "/api/v1/auth", { username: "admin", password: ADMIN_PASSWORD });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    return c;
  }
}

function postmasterPid(dataDir: string): number {
  return Number(readFileSync(join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0]);
}

function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

/** Creates groups one after another until stopped; remembers which were acknowledged. */
function writer(client: () => Client) {
  const acked: string[] = [];
  const refusals: { status: number; json: Record<string, unknown> }[] = [];
  let n = 0;
  let running = true;
  const done = (async () => {
    while (running) {
      const name = `fault-${n++}`;
      try {
        const r = await client().send("POST", "/api/v1/group", { name });
        if (r.status === 201) acked.push(name);
        else refusals.push(r);
      } catch {
        // The console is gone (connection refused or reset): not acknowledged.
        await sleep(50);
      }
    }
  })();
  return {
    acked,
    refusals,
    count: () => n,
    async stop() {
      running = false;
      await done;
    },
  };
}

/** Poll health every 20 ms until it answers 200 again; returns what was seen. */
async function watchHealth(baseURL: string, ms: number) {
  const seen: { status: number; database: unknown }[] = [];
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    try {
      const res = await fetch(`${baseURL}/api/v1/health`, { signal: AbortSignal.timeout(5000) });
      const body = (await res.json()) as { database?: unknown };
      seen.push({ status: res.status, database: body.database });
      if (res.status === 200 && seen.some((s) => s.status === 503)) return { seen, recoveredMs: Date.now() - t0 };
    } catch {
      seen.push({ status: 0, database: null });
    }
    await sleep(20);
  }
  return { seen, recoveredMs: -1 };
}

test("kill -9 and -TERM of the postmaster and kill -9 of the console: recovery without losing acknowledged writes", async () => {
  test.setTimeout(300_000);
  const dir = makeTempDir("defguard-faults-");
  const dataDir = join(dir, "data");
  const logFile = join(dir, "server.log");
  const env = { DEFGUARD_DEFAULT_ADMIN_PASSWORD: ADMIN_PASSWORD };
  let server: RunningServer | null = await startServer({ dataDir, logFile, env, entry: "start" });
  let failed = true;
  const t0 = Date.now();
  const note = (m: string) => console.log(`[faults] +${((Date.now() - t0) / 1000).toFixed(1)} s ${m}`);
  try {
    let client = await Client.signedIn(server.baseURL);
    const w = writer(() => client);
    const waitWrites = async (k: number) => {
      const target = w.acked.length + k;
      const t0 = Date.now();
      while (w.acked.length < target) {
        expect(Date.now() - t0, "writes resume").toBeLessThan(30_000);
        await sleep(20);
      }
    };
    await waitWrites(10);
    note(`first start took ${Math.round(server.startupMs)} ms; writes flowing`);

    // 1. and 2. kill -9, then kill -TERM of the postmaster during writes.
    for (const signal of ["SIGKILL", "SIGTERM"] as const) {
      const pm = postmasterPid(dataDir);
      process.kill(pm, signal);
      const health = await watchHealth(server.baseURL, 30_000);
      expect(health.recoveredMs, `health after ${signal}: ${JSON.stringify(health.seen.slice(-5))}`).toBeGreaterThan(0);
      const down = health.seen.filter((s) => s.status === 503);
      expect(down.length).toBeGreaterThan(0);
      expect(down.every((s) => s.database === false)).toBe(true);
      note(`${signal} of the postmaster: health back after ${health.recoveredMs} ms (${down.length} polls answered 503)`);
      await waitWrites(10);
      note(`writes resumed (${w.acked.length} acknowledged, ${w.refusals.length} refused)`);
      expect(pidAlive(pm)).toBe(false);
      expect(postmasterPid(dataDir)).not.toBe(pm);
    }
    // Meanwhile every refused write answered 503 with a message, never 500.
    expect(w.refusals.length).toBeGreaterThan(0);
    for (const r of w.refusals) {
      expect(r.status, JSON.stringify(r.json)).toBe(503);
      expect(typeof r.json.msg).toBe("string");
    }

    // 3. kill -9 of the console (the process that runs server.ts: the postmaster's parent).
    const pm = postmasterPid(dataDir);
    const consolePid = parentOf(pm);
    process.kill(consolePid, "SIGKILL");
    await sleep(300);
    await w.stop();
    expect(pidAlive(consolePid)).toBe(false);
    await server.stop(); // reaps the npm-start wrapper
    server = null;
    expect(pidAlive(pm), "the embedded PostgreSQL outlives a console killed with -9").toBe(true);

    note("console killed with -9; starting again");
    server = await startServer({ dataDir, logFile, env, entry: "start" });
    note(`console up again in ${Math.round(server.startupMs)} ms`);
    expect(pidAlive(pm)).toBe(false);
    expect(server.log()).toMatch(/stopping the embedded PostgreSQL \(PID \d+\) left running by a console that did not shut down/);
    expect(server.log()).not.toMatch(/start-up failed/);

    client = await Client.signedIn(server.baseURL);
    const list = await client.send("GET", "/api/v1/group");
    expect(list.status).toBe(200);
    const names = new Set(list.json.groups as string[]);
    const missing = w.acked.filter((g) => !names.has(g));
    expect(missing, `acknowledged but missing (of ${w.acked.length} acknowledged, ${w.count()} tried)`).toEqual([]);
    failed = false;
  } finally {
    await server?.stop();
    if (failed) console.log(`[faults] server log kept in ${logFile}`);
    else rmSync(dir, { recursive: true, force: true });
  }
});
