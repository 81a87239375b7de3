/**
 * Platform pieces: health check, migrations, generated secrets.
 */
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET as healthGet } from "@/app/api/v1/health/route";
import { closeDb } from "@/lib/db";
import { freePort } from "@/lib/db/embedded";
import { MIGRATION_LOCK, migrationsFolder, runMigrations } from "@/lib/db/migrate";
import { SECRET_NAMES } from "@/lib/config";
import { resolveSecrets } from "@/lib/secrets-file";
import { call, createTestDatabase, query } from "./helpers";

describe("GET /health", () => {
  const original = process.env.DATABASE_URL!;
  afterEach(async () => {
    await closeDb();
    process.env.DATABASE_URL = original;
  });

  it("answers 200 {status: ok} on a live database", async () => {
    const res = await call(healthGet, { path: "/api/v1/health" });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ status: "ok" });
    expect(res.headers.get("cache-control")).toMatch(/no-store/);
  });

  it("answers 503 when the database does not answer, and recovers when it does", async () => {
    const port = await freePort();
    await closeDb();
    process.env.DATABASE_URL = `postgres://nobody:nothing@127.0.0.1:${port}/none`;
    const down = await call(healthGet, { path: "/api/v1/health" });
    expect(down.status).toBe(503);
    expect(down.json.status).not.toBe("ok");

    await closeDb();
    process.env.DATABASE_URL = original;
    const up = await call(healthGet, { path: "/api/v1/health" });
    expect(up.status).toBe(200);
  });
});

/** Tables of the public schema, and rows of drizzle's migration journal. */
async function schemaState(client: pg.Client | null = null): Promise<{ tables: string[]; migrations: number }> {
  const run = async (text: string) => (client ? (await client.query(text)).rows : await query(text));
  const tables = (await run("select table_name from information_schema.tables where table_schema = 'public' order by 1")).map(
    (r) => String(r.table_name),
  );
  const [m] = await run("select count(*)::int n from drizzle.__drizzle_migrations");
  return { tables, migrations: Number(m.n) };
}

function journalEntries(): number {
  const j = JSON.parse(readFileSync(join(migrationsFolder(), "meta/_journal.json"), "utf8")) as { entries: unknown[] };
  return j.entries.length;
}

describe("migrations", () => {
  it("the test database (cloned from the template) is fully migrated", async () => {
    const state = await schemaState();
    expect(state.migrations).toBe(journalEntries());
    for (const t of ["users", "groups", "group_users", "sessions", "login_failures", "login_lockouts", "settings"]) {
      expect(state.tables).toContain(t);
    }
  });

  it("is a no-op on an already-migrated database", async () => {
    const before = await schemaState();
    await query("insert into groups (name) values ('keep-me')");
    await expect(runMigrations(process.env.DATABASE_URL!)).resolves.toBeUndefined();
    await expect(runMigrations(process.env.DATABASE_URL!)).resolves.toBeUndefined();
    expect(await schemaState()).toEqual(before);
    expect(await query("select 1 from groups where name = 'keep-me'")).toHaveLength(1);
  });

  it("on a current database takes neither the migration lock nor any migration (a restart costs one query)", async () => {
    // Another process holding the lock (as while it migrates) would make a run that takes it wait for ever.
    const holder = new pg.Client({ connectionString: process.env.DATABASE_URL! });
    await holder.connect();
    try {
      await holder.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
      const before = await schemaState();
      await expect(runMigrations(process.env.DATABASE_URL!)).resolves.toBeUndefined();
      expect(await schemaState()).toEqual(before);
    } finally {
      await holder.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
      await holder.end();
    }
  });

  it("two concurrent runs on an empty database both succeed and apply everything once", async () => {
    const url = await createTestDatabase({ fromTemplate: false });
    const results = await Promise.allSettled([runMigrations(url), runMigrations(url), runMigrations(url)]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "fulfilled"]);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const state = await schemaState(client);
      expect(state.migrations).toBe(journalEntries());
      expect(state.tables).toContain("users");
      expect(state.tables).toContain("sessions");
      // The advisory lock is released: a session-level lock left behind would block the next start.
      const locks = await client.query("select count(*)::int n from pg_locks where locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())");
      expect(locks.rows[0].n).toBe(0);
    } finally {
      await client.end();
    }
  });

  it("fails loudly on an unreachable database", async () => {
    const port = await freePort();
    await expect(runMigrations(`postgres://x:y@127.0.0.1:${port}/none`)).rejects.toThrow();
  });
});

describe("resolveSecrets (generated secrets file)", () => {
  const saved: Record<string, string | undefined> = {};
  const dirs: string[] = [];
  const names = Object.values(SECRET_NAMES);
  const tempDir = () => {
    const d = mkdtempSync(join(tmpdir(), "defguard-secrets-"));
    dirs.push(d);
    return d;
  };
  const clearEnv = () => {
    for (const n of names) delete process.env[n];
  };

  beforeEach(() => {
    for (const n of names) saved[n] = process.env[n];
    clearEnv();
  });
  afterEach(() => {
    for (const n of names) process.env[n] = saved[n];
  });
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("generates every secret once into secrets.json with mode 0600 and exports them", () => {
    const dir = tempDir();
    const s = resolveSecrets(dir);
    const file = join(dir, "secrets.json");
    expect(existsSync(file)).toBe(true);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const stored = JSON.parse(readFileSync(file, "utf8"));
    const values = [stored.secretKey, stored.gatewaySecret, stored.workerSecret, stored.encryptionKey, stored.embeddedDbPassword];
    for (const v of values) {
      expect(typeof v).toBe("string");
      expect(v.length).toBeGreaterThanOrEqual(32);
    }
    expect(new Set(values).size).toBe(values.length); // all different
    expect(s.embeddedDbPassword).toBe(stored.embeddedDbPassword);
    expect(process.env.DEFGUARD_SECRET_KEY).toBe(stored.secretKey);
    expect(process.env.DEFGUARD_GATEWAY_SECRET).toBe(stored.gatewaySecret);
    expect(process.env.DEFGUARD_YUBIBRIDGE_SECRET).toBe(stored.workerSecret);
    expect(process.env.DEFGUARD_ENCRYPTION_KEY).toBe(stored.encryptionKey);
  });

  it("returns the same values on the next start", () => {
    const dir = tempDir();
    const first = resolveSecrets(dir);
    const env1 = names.map((n) => process.env[n]);
    const text1 = readFileSync(join(dir, "secrets.json"), "utf8");
    clearEnv();
    const second = resolveSecrets(dir);
    expect(second).toEqual(first);
    expect(names.map((n) => process.env[n])).toEqual(env1);
    expect(readFileSync(join(dir, "secrets.json"), "utf8")).toBe(text1);
  });

  it("creates a missing data directory", () => {
    const dir = join(tempDir(), "nested", "data");
    resolveSecrets(dir);
    expect(existsSync(join(dir, "secrets.json"))).toBe(true);
  });

  it("tightens the permissions of an existing file to 0600", () => {
    const dir = tempDir();
    resolveSecrets(dir);
    const file = join(dir, "secrets.json");
    chmodSync(file, 0o644);
    clearEnv();
    resolveSecrets(dir);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("lets environment variables override (and does not copy them into the file)", () => {
    const dir = tempDir();
    resolveSecrets(dir);
    const stored = JSON.parse(readFileSync(join(dir, "secrets.json"), "utf8"));
    clearEnv();
    process.env.DEFGUARD_SECRET_KEY = "from-the-environment-0123456789abcdef";
    resolveSecrets(dir);
    expect(process.env.DEFGUARD_SECRET_KEY).toBe("from-the-environment-0123456789abcdef");
    expect(process.env.DEFGUARD_GATEWAY_SECRET).toBe(stored.gatewaySecret);
    expect(readFileSync(join(dir, "secrets.json"), "utf8")).not.toContain("from-the-environment");

    const fresh = tempDir();
    clearEnv();
    process.env.DEFGUARD_ENCRYPTION_KEY = "env-encryption-key-0123456789abcdef";
    resolveSecrets(fresh);
    expect(process.env.DEFGUARD_ENCRYPTION_KEY).toBe("env-encryption-key-0123456789abcdef");
    expect(readFileSync(join(fresh, "secrets.json"), "utf8")).not.toContain("env-encryption-key");
  });

  it("returns the values in effect, the environment's where it overrides", () => {
    const dir = tempDir();
    process.env.DEFGUARD_SECRET_KEY = "from-the-environment-0123456789abcdef";
    const s = resolveSecrets(dir);
    expect(s.secretKey).toBe("from-the-environment-0123456789abcdef");
    expect(s.gatewaySecret).toBe(process.env.DEFGUARD_GATEWAY_SECRET);
  });

  it("keeps a stored value when only other secrets are missing", () => {
    const dir = tempDir();
    const file = join(dir, "secrets.json");
    writeFileSync(file, JSON.stringify({ secretKey: "kept-secret-key-0123456789abcdef" }), { mode: 0o600 });
    resolveSecrets(dir);
    expect(process.env.DEFGUARD_SECRET_KEY).toBe("kept-secret-key-0123456789abcdef");
    const stored = JSON.parse(readFileSync(file, "utf8"));
    expect(stored.secretKey).toBe("kept-secret-key-0123456789abcdef");
    expect(stored.gatewaySecret).toBeTruthy();
    expect(stored.embeddedDbPassword).toBeTruthy();
  });
});
