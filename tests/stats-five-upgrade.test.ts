/**
 * Migration 0035 on an installation with samples: stats_5min starts empty, so five_from is set
 * to the next 5 minutes (the series read stats_5min only for windows from then on) and five_hi to
 * hour_from; on an installation without samples five_from stays '-infinity'.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { migrationsFolder, runMigrations } from "@/lib/db/migrate";
import { createTestDatabase } from "./helpers";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A database migrated up to (not including) 0035_stats_five_minutes. */
async function before0035(): Promise<{ db: pg.Client; url: string }> {
  const old = mkdtempSync(join(tmpdir(), "defguard-0035-"));
  dirs.push(old);
  cpSync(migrationsFolder(), old, { recursive: true });
  const j = JSON.parse(readFileSync(join(old, "meta/_journal.json"), "utf8")) as { entries: { tag: string }[] };
  const at = j.entries.findIndex((e) => e.tag === "0035_stats_five_minutes");
  expect(at).toBeGreaterThan(0);
  j.entries = j.entries.slice(0, at);
  writeFileSync(join(old, "meta/_journal.json"), JSON.stringify(j));
  const url = await createTestDatabase({ fromTemplate: false });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query("set client_min_messages = warning");
  const { migrate } = await import("drizzle-orm/node-postgres/migrator");
  const { drizzle } = await import("drizzle-orm/node-postgres");
  await migrate(drizzle(client), { migrationsFolder: old });
  return { db: client, url };
}

describe("migration 0035 (stats_5min)", { timeout: 60_000 }, () => {
  it("starts stats_5min at the next 5 minutes where samples were folded before it", async () => {
    const { db, url } = await before0035();
    try {
      const [{ id: loc }] = (
        await db.query<{ id: number }>(
          "insert into locations (name, address, port, endpoint, allowed_ips, pubkey, prvkey_enc) values ('Up', array['10.61.0.1/24'], 51820, 'vpn.example.com', array['10.61.0.0/24'], 'k', 'x') returning id",
        )
      ).rows;
      const [{ id: user }] = (await db.query<{ id: number }>("insert into users (username, email, first_name, last_name) values ('up', 'up@example.com', 'U', 'P') returning id")).rows;
      const [{ id: dev }] = (await db.query<{ id: number }>("insert into devices (name, wireguard_pubkey, user_id) values ('d', 'pk', $1) returning id", [user])).rows;
      await db.query("insert into device_stats (device_id, location_id, collected_at, upload, download) values ($1, $2, now() - interval '10 minutes', 5, 6)", [dev, loc]);
      // The hourly job of that version folded it.
      await db.query("update stats_rollup_state set hour_from = (select max(id) + 1 from device_stats)");
      await db.end();
      await runMigrations(url);
      const after = new pg.Client({ connectionString: url });
      await after.connect();
      try {
        const [st] = (
          await after.query<{ ahead: boolean; aligned: boolean; five_hi: string; hour_from: string }>(
            `select five_from > now() and five_from <= now() + interval '5 minutes' ahead,
                    extract(epoch from five_from)::bigint % 300 = 0 aligned, five_hi::text, hour_from::text from stats_rollup_state`,
          )
        ).rows;
        expect(st).toEqual({ ahead: true, aligned: true, five_hi: st.hour_from, hour_from: "2" });
        expect((await after.query("select 1 from stats_5min")).rows).toHaveLength(0);
      } finally {
        await after.end();
      }
    } finally {
      await db.end().catch(() => {});
    }
  });

  it("leaves five_from at -infinity without samples", async () => {
    const { db, url } = await before0035();
    await db.end();
    await runMigrations(url);
    const after = new pg.Client({ connectionString: url });
    await after.connect();
    try {
      const { rows } = await after.query("select five_from = '-infinity' none, five_hi::text, hour_from::text from stats_rollup_state");
      expect(rows).toEqual([{ none: true, five_hi: "1", hour_from: "1" }]);
    } finally {
      await after.end();
    }
  });
});
