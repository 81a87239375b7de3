/**
 * npm run backup / restore (scripts/backup.mjs) against the test PostgreSQL: the version rule
 * (pg_dump older than the server is refused in one line), the embedded-database refusal, and a
 * full round trip (archive with database.dump + secrets.json, restore into another database,
 * every row back). The round trip needs client tools at least as new as the server: against the
 * test server when they are; otherwise (Debian 12 ships version 15 tools, the embedded server is
 * newer) against a server of the tools' own version from the distribution's packages, started
 * here in a temporary directory and migrated to the console's schema.
 */
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "./setup/db";
import { freePort } from "@/lib/db/embedded";
import { runMigrations } from "@/lib/db/migrate";
// @ts-expect-error plain ES module without types
import { backup, restore, toolMajor } from "../scripts/backup.mjs";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), "defguard-backup-test-"));
  dirs.push(d);
  return d;
};

async function serverMajor(url: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const r = await c.query("select current_setting('server_version_num')::int n");
  await c.end();
  return Math.floor(r.rows[0].n / 10000);
}

async function counts(url: string): Promise<Record<string, number>> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const tables = (await c.query("select tablename from pg_tables where schemaname = 'public' order by 1")).rows.map((r) => r.tablename as string);
  const out: Record<string, number> = {};
  for (const t of tables) out[t] = Number((await c.query(`select count(*) n from "${t}"`)).rows[0].n);
  await c.end();
  return out;
}

/**
 * A PostgreSQL server of the distribution's packages (/usr/lib/postgresql/<major>/bin), in a
 * temporary directory on a free loopback port, run as `nobody` when this is root; null when that
 * version's server is not installed. Stopped by PID with `stop`.
 */
async function startDistroPostgres(major: number): Promise<{ url: (db: string) => string; stop: () => void } | null> {
  const bin = `/usr/lib/postgresql/${major}/bin`;
  if (!existsSync(join(bin, "postgres")) || !existsSync(join(bin, "initdb"))) return null;
  const dir = temp();
  const asRoot = process.getuid?.() === 0;
  const wrap = asRoot ? ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "--"] : [];
  if (asRoot) {
    chownSync(dir, 65534, 65534);
    chmodSync(dir, 0o700);
  }
  const run = (cmd: string[]) => spawnSync(cmd[0], cmd.slice(1), { encoding: "utf8" });
  const init = run([...wrap, join(bin, "initdb"), "-D", join(dir, "data"), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"]);
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const args = ["-D", join(dir, "data"), "-p", String(port), "-k", dir, "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"];
  const cmd = [...wrap, join(bin, "postgres"), ...args];
  const child: ChildProcess = spawn(cmd[0], cmd.slice(1), { stdio: "ignore" });
  const url = (db: string) => `postgres://postgres@127.0.0.1:${port}/${db}`;
  for (let i = 0; ; i++) {
    const c = new pg.Client({ connectionString: url("postgres") });
    try {
      await c.connect();
      await c.end();
      break;
    } catch (err) {
      await c.end().catch(() => {});
      if (i > 200 || child.exitCode !== null) throw new Error(`PostgreSQL ${major} did not start: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { url, stop: () => child.kill("SIGTERM") };
}

describe("backup and restore", { timeout: 120_000 }, () => {
  it("refuses an embedded database that is not running, in one sentence", async () => {
    const dir = temp();
    await expect(backup(join(dir, "x.tar"), { dir, env: {} })).rejects.toThrow(/no DATABASE_URL and no .*secrets\.json: nothing to back up/);
    writeFileSync(join(dir, "secrets.json"), JSON.stringify({ embeddedDbPassword: "x" }));
    await expect(backup(join(dir, "x.tar"), { dir, env: {} })).rejects.toThrow(/embedded PostgreSQL of .* is not running: start the console/);
  });

  it("refuses client tools older than the server, naming both versions", async () => {
    const url = await createTestDatabase();
    const server = await serverMajor(url);
    const dir = temp();
    // A pg_dump that reports an older major version.
    const bin = temp();
    writeFileSync(join(bin, "pg_dump"), `#!/bin/sh\necho "pg_dump (PostgreSQL) ${server - 3}.1"\n`, { mode: 0o755 });
    const saved = process.env.DEFGUARD_PG_BIN;
    process.env.DEFGUARD_PG_BIN = bin;
    try {
      await expect(backup(join(dir, "x.tar"), { dir, env: { DATABASE_URL: url } })).rejects.toThrow(
        new RegExp(`pg_dump is version ${server - 3}, older than the PostgreSQL ${server} server`),
      );
    } finally {
      if (saved === undefined) delete process.env.DEFGUARD_PG_BIN;
      else process.env.DEFGUARD_PG_BIN = saved;
    }
  });

  it("the command line fails in one line with exit status 1", async () => {
    const url = await createTestDatabase();
    const dir = temp();
    const r = spawnSync(process.execPath, ["scripts/backup.mjs", "backup", join(dir, "x.tar")], {
      encoding: "utf8",
      env: { ...process.env, DATABASE_URL: url, DEFGUARD_DATA_DIR: dir, DEFGUARD_PG_BIN: join(dir, "nowhere") },
    });
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split("\n")).toEqual([expect.stringMatching(/^backup failed: .*nowhere\/pg_dump not found: install the PostgreSQL \d+ client tools/)]);
  });

  it("round trip: archive with the dump and secrets.json, restored into an empty database with every row", async (ctx) => {
    let url = await createTestDatabase();
    let target: string | null = null;
    const server = await serverMajor(url);
    const have = toolMajor("pg_dump");
    const restoreMajor = toolMajor("pg_restore");
    let stop = () => {};
    if (have === null || have < server || (restoreMajor ?? 0) < server) {
      // Older tools than the test server: a server of the tools' own version, with the schema.
      const distro = have !== null && restoreMajor === have ? await startDistroPostgres(have) : null;
      if (!distro) {
        console.log(`skipped: the PostgreSQL client tools here are version ${have ?? "none"}, the server is ${server}, and no PostgreSQL ${have ?? ""} server is installed to pair them with; install postgresql-client-${server} or set DEFGUARD_PG_BIN`);
        ctx.skip();
        return;
      }
      stop = distro.stop;
      const admin = new pg.Client({ connectionString: distro.url("postgres") });
      await admin.connect();
      await admin.query("create database source");
      await admin.query("create database target");
      await admin.end();
      url = distro.url("source");
      target = distro.url("target");
      await runMigrations(url);
      expect(await serverMajor(url)).toBe(have);
    }
    try {
      await roundTrip(url, target ?? (await createTestDatabase({ fromTemplate: false })));
    } finally {
      stop();
    }
  });
});

/** Back up `url` (one user added) and restore it into the empty `target`: every row, the secrets. */
async function roundTrip(url: string, target: string): Promise<void> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query("insert into users (username, first_name, last_name, email) values ('bk', 'Back', 'Up', 'bk@example.com')");
  await c.end();
  const dir = temp();
  writeFileSync(join(dir, "secrets.json"), JSON.stringify({ encryptionKey: "k1", embeddedDbPassword: "old" }));
  const archive = join(dir, "b.tar");
  const r = await backup(archive, { dir, env: { DATABASE_URL: url } });
  expect(r.secrets).toBe(true);
  const listed = spawnSync("tar", ["-tf", archive], { encoding: "utf8" }).stdout.split("\n").filter(Boolean).sort();
  expect(listed).toEqual(["database.dump", "manifest.json", "secrets.json"]);

  const dir2 = temp();
  writeFileSync(join(dir2, "secrets.json"), JSON.stringify({ encryptionKey: "other", embeddedDbPassword: "mine" }));
  await restore(archive, { dir: dir2, env: { DATABASE_URL: target } });
  expect(await counts(target)).toEqual(await counts(url));
  expect(JSON.parse(readFileSync(join(dir2, "secrets.json"), "utf8"))).toEqual({ encryptionKey: "k1", embeddedDbPassword: "mine" });
}
