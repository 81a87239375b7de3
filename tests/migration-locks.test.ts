import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkMigrations } from "../lib/db/migration-rules";

const dir = join(process.cwd(), "drizzle");
const journal = JSON.parse(readFileSync(join(dir, "meta/_journal.json"), "utf8")) as { entries: { tag: string }[] };
const migrations = journal.entries.map((e): [string, string] => [`${e.tag}.sql`, readFileSync(join(dir, `${e.tag}.sql`), "utf8")]);

/**
 * Statements that broke the rule before it existed, all on tables that were empty or tiny in
 * every installation then (no release had shipped). Nothing may be added to this list.
 */
const GRANDFATHERED = ["0011_sign_in_throttle_sessions.sql login_failures index built under lock"];

describe("migrations never hold long locks on large tables", () => {
  it("the repository's migrations follow the rule (README: Backup, restore, upgrade)", () => {
    const found = checkMigrations(migrations).map((v) => `${v.file} ${v.table} ${v.rule}`);
    expect(found).toEqual(GRANDFATHERED);
  });

  it("the check catches each forbidden statement on an existing large table, and allows the cheap ones", () => {
    const base: [string, string] = ["a.sql", 'CREATE TABLE "device_stats" ("id" bigint);--> statement-breakpoint\nCREATE TABLE "x" ("id" int);'];
    const bad = [
      'CREATE INDEX "i" ON "device_stats" USING btree ("id");',
      'ALTER TABLE "device_stats" ALTER COLUMN "id" SET DATA TYPE numeric;',
      'ALTER TABLE "device_stats" ALTER COLUMN "id" SET NOT NULL;',
      'ALTER TABLE "device_stats" ADD CONSTRAINT "f" FOREIGN KEY ("id") REFERENCES "x"("id");',
      'ALTER TABLE "device_stats" ADD COLUMN "t" timestamptz DEFAULT now() NOT NULL;',
      'UPDATE "device_stats" SET "id" = "id" + 1;',
    ];
    for (const st of bad) expect(checkMigrations([base, ["b.sql", st]]), st).toHaveLength(1);
    const ok = [
      'ALTER TABLE "device_stats" ADD COLUMN "n" text;',
      'ALTER TABLE "device_stats" ADD COLUMN "c" integer DEFAULT 0 NOT NULL;',
      'ALTER TABLE "device_stats" ADD CONSTRAINT "f" FOREIGN KEY ("id") REFERENCES "x"("id") NOT VALID;',
      'UPDATE "device_stats" SET "id" = 1 WHERE "id" = 2;',
      'CREATE INDEX "j" ON "x" USING btree ("id");',
    ];
    for (const st of ok) expect(checkMigrations([base, ["b.sql", st]]), st).toEqual([]);
    // A table created in the same migration is empty: anything goes.
    expect(checkMigrations([["a.sql", base[1] + '\n--> statement-breakpoint\nCREATE INDEX "i" ON "device_stats" ("id");']])).toEqual([]);
  });
});
