import "server-only";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import pg from "pg";

/** Arbitrary constant: the advisory lock that serialises migrations across console processes. */
export const MIGRATION_LOCK = 7_240_118;

export function migrationsFolder(): string {
  const candidates = [resolve("drizzle"), join(__dirnameSafe(), "../../drizzle")];
  for (const c of candidates) if (existsSync(join(c, "meta/_journal.json"))) return c;
  throw new Error("drizzle/ migrations folder not found");
}

function __dirnameSafe(): string {
  try {
    return new URL(".", import.meta.url).pathname;
  } catch {
    return process.cwd();
  }
}

/** The `when` of the newest migration in drizzle/meta/_journal.json. */
function newestMigrationMillis(folder: string): number {
  const journal = JSON.parse(readFileSync(join(folder, "meta/_journal.json"), "utf8")) as { entries: { when: number }[] };
  return Math.max(0, ...journal.entries.map((e) => e.when));
}

/**
 * Whether the database already has the newest migration of this build: one query on Drizzle's
 * own record (the migrator applies what is newer than its newest row, so this is its test too).
 * False when the record does not exist yet.
 */
async function schemaIsCurrent(client: pg.Client, folder: string): Promise<boolean> {
  try {
    const r = await client.query<{ newest: string | null }>("select max(created_at)::text as newest from drizzle.__drizzle_migrations");
    const newest = r.rows[0]?.newest;
    return newest != null && Number(newest) >= newestMigrationMillis(folder);
  } catch (err) {
    if ((err as { code?: string }).code === "42P01" || (err as { code?: string }).code === "3F000") return false; // no table / schema yet
    throw err;
  }
}

/**
 * Apply pending migrations. Safe to run from several processes at once; a no-op when current.
 * A restart on a current database costs one query: neither the migration lock nor the
 * migration files are touched.
 */
export async function runMigrations(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let locked = false;
  try {
    const folder = migrationsFolder();
    if (await schemaIsCurrent(client, folder)) return;
    await client.query("SET client_min_messages = warning");
    locked = true;
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    // Drizzle's migrator is loaded only here: a start on a current database does without it.
    const [{ migrate }, { drizzle }] = await Promise.all([import("drizzle-orm/node-postgres/migrator"), import("drizzle-orm/node-postgres")]);
    await migrate(drizzle(client), { migrationsFolder: folder });
  } finally {
    if (locked) await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
    await client.end();
  }
}
