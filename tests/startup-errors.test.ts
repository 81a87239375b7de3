/**
 * Bad operator input stops start-up with one clear line and exit status 1, never a bare stack
 * trace: a malformed or wrong DATABASE_URL, a database that stays unreachable, an unusable data
 * directory (missing, not writable, or holding a damaged secrets.json), and production mode
 * (NODE_ENV=production with an external database) without the secrets every replica must
 * share, or with ones too short to be secrets. The real entry point (server.ts, as `npm start` runs it), stopped before Next.js.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "defguard-startup-"));
  dirs.push(d);
  return d;
}

const TSX_ENTRY = ["--import", "./scripts/server-only-hook.mjs", "--import", "tsx", "server.ts"];

function run(env: Record<string, string>, args = TSX_ENTRY): Promise<{ code: number | null; out: string }> {
  return new Promise((res) => {
    const child = spawn(process.execPath, args, {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", DEFGUARD_GRPC_DISABLED: "1", ...env } as unknown as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (out += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      res({ code, out });
    });
  });
}

function expectOneLine(out: string, pattern: RegExp) {
  const failures = out.split("\n").filter((l) => l.includes("start-up failed"));
  expect(failures, out).toHaveLength(1);
  expect(failures[0]).toMatch(pattern);
  expect(out, "no stack trace").not.toMatch(/^\s+at /m);
}

describe("start-up refuses bad input in one line", { timeout: 90_000 }, () => {
  it("a DATABASE_URL that is not a PostgreSQL URL", async () => {
    const r = await run({ DATABASE_URL: "mysql://u:pw@db.example.com/defguard", DEFGUARD_DATA_DIR: tempDir() });
    expect(r.code).toBe(1);
    expectOneLine(r.out, /start-up failed: DATABASE_URL must start with postgres:\/\//);
    expect(r.out).not.toContain("embedded PostgreSQL");
  });

  it("a wrong database password, at once and without the password", async () => {
    const u = new URL(inject("pgAdminUrl"));
    u.password = "wrong-Pa55";
    const r = await run({ DATABASE_URL: u.toString(), DEFGUARD_DATA_DIR: tempDir() });
    expect(r.code).toBe(1);
    expectOneLine(r.out, /start-up failed: cannot use the database 127\.0\.0\.1:\d+\/\w+: .*password authentication failed/);
    expect(r.out).not.toContain("wrong-Pa55");
  });

  it("a database that stays unreachable, after waiting DEFGUARD_DB_WAIT_TIMEOUT", async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const port = (srv.address() as AddressInfo).port;
    await new Promise((r) => srv.close(r));
    const r = await run({ DATABASE_URL: `postgres://u:pw@127.0.0.1:${port}/defguard`, DEFGUARD_DATA_DIR: tempDir(), DEFGUARD_DB_WAIT_TIMEOUT: "2" });
    expect(r.code).toBe(1);
    expect(r.out.split("\n").filter((l) => l.includes("waiting for the database")).length).toBeGreaterThanOrEqual(2);
    expectOneLine(r.out, /start-up failed: the database 127\.0\.0\.1:\d+\/defguard stayed unreachable .*ECONNREFUSED/);
  });

  it("a data directory that cannot be created", async () => {
    const file = join(tempDir(), "not-a-directory");
    writeFileSync(file, "");
    const r = await run({ DEFGUARD_DATA_DIR: join(file, "data") });
    expect(r.code).toBe(1);
    expectOneLine(r.out, /start-up failed: the data directory .*not-a-directory\/data is not usable \(ENOTDIR on mkdir/);
  });

  it("a data directory that exists but cannot be written", async () => {
    // As root every directory is writable: use a read-only file system instead.
    let dir = "/sys";
    if (process.getuid?.() !== 0) {
      dir = tempDir();
      chmodSync(dir, 0o555);
    }
    const r = await run({ DEFGUARD_DATA_DIR: dir });
    expect(r.code).toBe(1);
    expectOneLine(r.out, /start-up failed: the data directory \S+ is not usable \((EACCES|EPERM|EROFS) on open \S+secrets\.json\); set DEFGUARD_DATA_DIR to a writable directory/);
  });

  it("a damaged secrets.json in the data directory", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "secrets.json"), '{"secretKey": "abc",');
    const r = await run({ DEFGUARD_DATA_DIR: dir });
    expect(r.code).toBe(1);
    expectOneLine(r.out, /start-up failed: \S+secrets\.json is not valid JSON .*restore it from a backup/);
  });

  const strong = (c: string) => c.repeat(40);
  const allSecrets = {
    DEFGUARD_SECRET_KEY: strong("a"),
    DEFGUARD_GATEWAY_SECRET: strong("b"),
    DEFGUARD_YUBIBRIDGE_SECRET: strong("c"),
    DEFGUARD_ENCRYPTION_KEY: strong("d"),
  };

  it("production mode with an external database and secrets missing: named, nothing generated", async () => {
    const dir = tempDir();
    const { DEFGUARD_SECRET_KEY: _s, DEFGUARD_ENCRYPTION_KEY: _e, ...some } = allSecrets;
    const r = await run({ NODE_ENV: "production", DATABASE_URL: inject("pgAdminUrl"), DEFGUARD_DATA_DIR: dir, ...some });
    expect(r.code).toBe(1);
    expectOneLine(r.out, /start-up failed: production mode \(NODE_ENV=production\) with an external database needs DEFGUARD_SECRET_KEY, DEFGUARD_ENCRYPTION_KEY set, the same on every console process/);
    expect(r.out).not.toContain("DEFGUARD_GATEWAY_SECRET");
    expect(r.out).not.toContain("migrat");
  });

  it("production mode with a secret too short to be one", async () => {
    const r = await run({ NODE_ENV: "production", DATABASE_URL: inject("pgAdminUrl"), DEFGUARD_DATA_DIR: tempDir(), ...allSecrets, DEFGUARD_SECRET_KEY: "changeme" });
    expect(r.code).toBe(1);
    expectOneLine(r.out, /start-up failed: DEFGUARD_SECRET_KEY too short for production mode: at least 32 characters/);
    expect(r.out).not.toContain("changeme");
  });

  it("production mode with every secret set goes on to the database checks", async () => {
    const r = await run({ NODE_ENV: "production", DATABASE_URL: "mysql://u:pw@db.example.com/defguard", DEFGUARD_DATA_DIR: tempDir(), ...allSecrets });
    expect(r.code).toBe(1);
    expectOneLine(r.out, /start-up failed: DATABASE_URL must start with postgres:\/\//);
  });

  it("the production entry (node scripts/start.mjs, compiled dist/server.js) answers the same way", async () => {
    // Build of the web app skipped: start-up fails before Next.js is loaded.
    const r = await run({ NODE_ENV: "production", DATABASE_URL: inject("pgAdminUrl"), DEFGUARD_DATA_DIR: tempDir(), DEFGUARD_SKIP_BUILD: "1" }, ["scripts/start.mjs"]);
    expect(r.code).toBe(1);
    expectOneLine(r.out, /start-up failed: production mode \(NODE_ENV=production\) with an external database needs DEFGUARD_SECRET_KEY, DEFGUARD_GATEWAY_SECRET, DEFGUARD_YUBIBRIDGE_SECRET, DEFGUARD_ENCRYPTION_KEY set/);
  });
});
