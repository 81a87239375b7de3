#!/usr/bin/env node
/**
 * npm run backup [-- <archive.tar>]   /   npm run restore -- <archive.tar> [--force]
 *
 * One archive (tar) holding `database.dump` (pg_dump custom format), `secrets.json` (the
 * generated secrets: without DEFGUARD_ENCRYPTION_KEY encrypted settings are unreadable) and
 * `manifest.json` (when, which PostgreSQL, which migrations). The database is DATABASE_URL, or
 * the embedded one of DEFGUARD_DATA_DIR (the console must be running: it runs the embedded
 * server). pg_dump / pg_restore come from DEFGUARD_PG_BIN, else PATH; their major version must
 * be at least the server's. Every failure is one line and exit status 1.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";

class Refusal extends Error {}

function dataDir() {
  const dir = process.env.DEFGUARD_DATA_DIR || "./data";
  return resolve(dir);
}

/** The database to back up: DATABASE_URL, or the running embedded server of the data directory. */
export function databaseUrl(env = process.env, dir = dataDir()) {
  if (env.DATABASE_URL) return env.DATABASE_URL;
  const secretsFile = join(dir, "secrets.json");
  if (!existsSync(secretsFile)) throw new Refusal(`no DATABASE_URL and no ${secretsFile}: nothing to back up`);
  const { embeddedDbPassword } = JSON.parse(readFileSync(secretsFile, "utf8"));
  let pid;
  try {
    pid = readFileSync(join(realpathSync(join(dir, "postgres")), "postmaster.pid"), "utf8").split("\n");
  } catch {
    throw new Refusal(`the embedded PostgreSQL of ${dir} is not running: start the console (npm start), then back up`);
  }
  return `postgres://defguard:${encodeURIComponent(embeddedDbPassword)}@127.0.0.1:${pid[3].trim()}/defguard`;
}

function tool(name) {
  const dir = process.env.DEFGUARD_PG_BIN;
  return dir ? join(dir, name) : name;
}

/** Major version of a pg_dump/pg_restore binary, or null when it cannot run. */
export function toolMajor(name) {
  const r = spawnSync(tool(name), ["--version"], { encoding: "utf8" });
  if (r.status !== 0) return null;
  // "pg_dump (PostgreSQL) 18.1" or "pg_dump (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"
  const m = /\(PostgreSQL\)\s+(\d+)/.exec(r.stdout);
  return m ? Number(m[1]) : null;
}

async function serverInfo(url) {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  c.on("error", () => {});
  try {
    await c.connect();
    const v = await c.query("select current_setting('server_version_num')::int n, current_setting('server_version') v");
    let migrations = [];
    try {
      migrations = (await c.query("select hash, created_at from drizzle.__drizzle_migrations order by created_at")).rows.map((r) => ({ hash: r.hash, created_at: String(r.created_at) }));
    } catch {
      // an empty database
    }
    return { major: Math.floor(v.rows[0].n / 10000), version: v.rows[0].v, migrations };
  } catch (err) {
    throw new Refusal(`cannot connect to the database: ${err.message || err.code}`);
  } finally {
    await c.end().catch(() => {});
  }
}

function checkTool(name, serverMajor) {
  const major = toolMajor(name);
  if (major === null) throw new Refusal(`${tool(name)} not found: install the PostgreSQL ${serverMajor} client tools or set DEFGUARD_PG_BIN to their directory`);
  if (major < serverMajor) {
    throw new Refusal(`${tool(name)} is version ${major}, older than the PostgreSQL ${serverMajor} server: install the PostgreSQL ${serverMajor} client tools or set DEFGUARD_PG_BIN`);
  }
}

function run(cmd, args, env) {
  const r = spawnSync(cmd, args, { encoding: "utf8", env: { ...process.env, ...env } });
  if (r.status !== 0) throw new Refusal(`${cmd} failed: ${(r.stderr || r.error?.message || "").trim().split("\n").pop()}`);
}

/** libpq takes the password from PGPASSWORD, so it is not on a command line (ps). */
function splitUrl(url) {
  const u = new URL(url);
  const password = decodeURIComponent(u.password);
  u.password = "";
  return { url: u.toString(), env: password ? { PGPASSWORD: password } : {} };
}

export async function backup(archive, { dir = dataDir(), env = process.env } = {}) {
  const url = databaseUrl(env, dir);
  const info = await serverInfo(url);
  checkTool("pg_dump", info.major);
  const work = mkdtempSync(join(tmpdir(), "defguard-backup-"));
  try {
    const { url: bare, env: pgEnv } = splitUrl(url);
    run(tool("pg_dump"), ["--format=custom", "--no-owner", "--no-privileges", `--file=${join(work, "database.dump")}`, `--dbname=${bare}`], pgEnv);
    const secrets = join(dir, "secrets.json");
    const files = ["database.dump", "manifest.json"];
    if (existsSync(secrets)) {
      copyFileSync(secrets, join(work, "secrets.json"));
      files.push("secrets.json");
    }
    writeFileSync(join(work, "manifest.json"), JSON.stringify({ created: new Date().toISOString(), server: info.version, migrations: info.migrations.length, secrets: files.includes("secrets.json") }, null, 2));
    const out = resolve(archive);
    run("tar", ["-cf", out, "-C", work, ...files]);
    chmodSync(out, 0o600);
    return { archive: out, migrations: info.migrations.length, secrets: files.includes("secrets.json") };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export async function restore(archive, { dir = dataDir(), env = process.env, force = false } = {}) {
  if (!existsSync(archive)) throw new Refusal(`no archive ${archive}`);
  const url = databaseUrl(env, dir);
  const info = await serverInfo(url);
  if (info.migrations.length && !force) throw new Refusal("the database is not empty: restore replaces it, pass --force to confirm");
  checkTool("pg_restore", info.major);
  const work = mkdtempSync(join(tmpdir(), "defguard-restore-"));
  try {
    run("tar", ["-xf", resolve(archive), "-C", work]);
    if (!existsSync(join(work, "database.dump"))) throw new Refusal(`${archive} holds no database.dump`);
    const { url: bare, env: pgEnv } = splitUrl(url);
    run(tool("pg_restore"), ["--clean", "--if-exists", "--no-owner", "--no-privileges", "--single-transaction", `--dbname=${bare}`, join(work, "database.dump")], pgEnv);
    if (existsSync(join(work, "secrets.json"))) {
      const target = join(dir, "secrets.json");
      const restored = JSON.parse(readFileSync(join(work, "secrets.json"), "utf8"));
      // Keep the embedded database password of this data directory: it is this cluster's, not the backup's.
      if (existsSync(target)) {
        const current = JSON.parse(readFileSync(target, "utf8"));
        if (current.embeddedDbPassword) restored.embeddedDbPassword = current.embeddedDbPassword;
        copyFileSync(target, `${target}.before-restore`);
      }
      writeFileSync(target, JSON.stringify(restored, null, 2), { mode: 0o600 });
    }
    return { files: readdirSync(work) };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const isMain = process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname);
if (isMain) {
  const [cmd, ...rest] = process.argv.slice(2);
  const args = rest.filter((a) => !a.startsWith("--"));
  (async () => {
    if (cmd === "backup") {
      const file = args[0] || `defguard-backup-${new Date().toISOString().replace(/[:.]/g, "-")}.tar`;
      const r = await backup(file);
      console.log(`backup written to ${r.archive} (${r.migrations} migrations${r.secrets ? ", secrets.json included" : ", no secrets.json"})`);
    } else if (cmd === "restore") {
      if (!args[0]) throw new Refusal("usage: npm run restore -- <archive.tar> [--force]");
      await restore(args[0], { force: rest.includes("--force") });
      console.log(`restored ${args[0]}; start the console (it applies newer migrations)`);
    } else {
      throw new Refusal("usage: node scripts/backup.mjs backup [archive.tar] | restore <archive.tar> [--force]");
    }
  })().catch((err) => {
    console.error(`${cmd ?? "backup"} failed: ${err instanceof Refusal ? err.message : err?.message || err}`);
    process.exit(1);
  });
}
