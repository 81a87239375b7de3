/**
 * Upgrade: a database populated by an earlier version of this project (tests/fixtures/upgrade-*.json:
 * the migrations it had applied and every row of every table, written through the real route
 * handlers at that version) is brought to the current schema by runMigrations, and every row it
 * had is still there with the same values.
 *
 * To record a new fixture at the current version: DEFGUARD_WRITE_UPGRADE_FIXTURE=1 npx vitest run tests/upgrade.test.ts
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { migrationsFolder, runMigrations } from "@/lib/db/migrate";
import { createTestDatabase, createUser, query, signIn } from "./helpers";
import { api, mkLocation, newKey } from "./wireguard-fixtures";

interface Fixture {
  /** Tags of the migrations applied when the fixture was written, in order. */
  migrations: string[];
  tables: Record<string, Record<string, unknown>[]>;
}

const FIXTURES = join(process.cwd(), "tests/fixtures");
const writing = process.env.DEFGUARD_WRITE_UPGRADE_FIXTURE === "1";
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const journal = () => JSON.parse(readFileSync(join(migrationsFolder(), "meta/_journal.json"), "utf8")) as { entries: { tag: string }[] };

/** Every public table's rows as JSON (PostgreSQL's own rendering, so both sides compare alike). */
async function snapshot(run: (sql: string) => Promise<Record<string, unknown>[]>): Promise<Record<string, Record<string, unknown>[]>> {
  const tables = (await run("select tablename from pg_tables where schemaname = 'public' order by 1")).map((r) => String(r.tablename));
  const out: Record<string, Record<string, unknown>[]> = {};
  for (const t of tables) {
    const rows = (await run(`select row_to_json(x) j from "${t}" x`)).map((r) => r.j as Record<string, unknown>);
    out[t] = rows.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return out;
}

describe("upgrade from a database written by an earlier version", { timeout: 120_000 }, () => {
  it("records the fixture (DEFGUARD_WRITE_UPGRADE_FIXTURE=1)", async (ctx) => {
    if (!writing) {
      console.log("skipped: records a new upgrade fixture only with DEFGUARD_WRITE_UPGRADE_FIXTURE=1");
      ctx.skip();
    }
    await createUser({ username: "root", isAdmin: true, groups: ["ops"] });
    await createUser({ username: "alice", groups: ["ops"] });
    await createUser({ username: "bob", isActive: false });
    const admin = await signIn("root");
    const alice = await signIn("alice");
    const loc = await mkLocation(admin, { name: "Main", address: "10.40.0.1/24", endpoint: "vpn.example.com", port: 51820, allowed_ips: "10.40.0.0/24" });
    expect(loc.id).toBeGreaterThan(0);
    for (const name of ["laptop", "phone"]) expect((await api.createDevice(alice, "alice", { name, wireguard_pubkey: newKey() })).status).toBe(201);
    const fixture: Fixture = {
      migrations: journal().entries.map((e) => e.tag),
      tables: await snapshot((sql) => query(sql)),
    };
    mkdirSync(FIXTURES, { recursive: true });
    const file = join(FIXTURES, `upgrade-${fixture.migrations.at(-1)}.json`);
    writeFileSync(file, JSON.stringify(fixture, null, 1) + "\n");
    console.log(`wrote ${file}`);
  });

  const fixtures = existsSync(FIXTURES) ? readdirSync(FIXTURES).filter((f) => /^upgrade-.*\.json$/.test(f)) : [];
  it("has at least one fixture", () => expect(fixtures.length).toBeGreaterThan(0));

  for (const name of fixtures) {
    it(`${name}: migrates to the current schema and keeps every row`, async () => {
      const fixture = JSON.parse(readFileSync(join(FIXTURES, name), "utf8")) as Fixture;
      const current = journal().entries.map((e) => e.tag);
      expect(current.slice(0, fixture.migrations.length), "migrations are only ever appended").toEqual(fixture.migrations);

      // The schema of that version: its migrations only, from a copy of the folder.
      const old = mkdtempSync(join(tmpdir(), "defguard-upgrade-"));
      dirs.push(old);
      cpSync(migrationsFolder(), old, { recursive: true });
      const j = JSON.parse(readFileSync(join(old, "meta/_journal.json"), "utf8"));
      j.entries = j.entries.slice(0, fixture.migrations.length);
      writeFileSync(join(old, "meta/_journal.json"), JSON.stringify(j));
      const url = await createTestDatabase({ fromTemplate: false });
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const { migrate } = await import("drizzle-orm/node-postgres/migrator");
        const { drizzle } = await import("drizzle-orm/node-postgres");
        await client.query("set client_min_messages = warning");
        await migrate(drizzle(client), { migrationsFolder: old });

        // Its data: triggers and foreign keys off while loading, sequences moved past the ids.
        await client.query("begin");
        await client.query("set local session_replication_role = replica");
        // Rows the migrations seed (settings, list versions) are replaced by the fixture's.
        for (const table of Object.keys(fixture.tables)) await client.query(`delete from "${table}"`);
        for (const [table, rows] of Object.entries(fixture.tables)) {
          if (!rows.length) continue;
          await client.query(`insert into "${table}" select * from json_populate_recordset(null::"${table}", $1::json)`, [JSON.stringify(rows)]);
        }
        await client.query("commit");
        await client.query(`
          do $$ declare r record; begin
            for r in select c.relname tbl, a.attname col, pg_get_serial_sequence(format('%I', c.relname), a.attname) seq
                       from pg_class c join pg_attribute a on a.attrelid = c.oid join pg_namespace n on n.oid = c.relnamespace
                      where n.nspname = 'public' and c.relkind = 'r' and a.attnum > 0 and pg_get_serial_sequence(format('%I', c.relname), a.attname) is not null loop
              execute format('select setval(%L, coalesce((select max(%I) from %I), 0) + 1, false)', r.seq, r.col, r.tbl);
            end loop;
          end $$`);
      } finally {
        await client.end();
      }

      await runMigrations(url);

      const after = new pg.Client({ connectionString: url });
      await after.connect();
      try {
        const applied = await after.query("select count(*)::int n from drizzle.__drizzle_migrations");
        expect(applied.rows[0].n).toBe(current.length);
        const now = await snapshot(async (sql) => (await after.query(sql)).rows);
        for (const [table, rows] of Object.entries(fixture.tables)) {
          expect(now[table], `table ${table} still exists`).toBeDefined();
          // Every old row, with its old columns and values (new columns may have been added).
          const projected = now[table].map((r) => JSON.stringify(Object.fromEntries(Object.keys(rows[0] ?? {}).map((k) => [k, r[k]]))));
          for (const row of rows) expect(projected, `${table}: ${JSON.stringify(row).slice(0, 200)}`).toContain(JSON.stringify(row));
          expect(now[table].length, `${table} row count`).toBe(rows.length);
        }
      } finally {
        await after.end();
      }
    });
  }
});
