import "server-only";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import pg from "pg";
import { drizzle } from "drizzle-orm/node-postgres";

/** Arbitrary constant: the advisory lock that serialises migrations across console processes. */
const MIGRATION_LOCK = 7_240_118;

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

/** Apply pending migrations. Safe to run from several processes at once; a no-op when current. */
export async function runMigrations(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SET client_min_messages = warning");
    await client.query("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]);
    await migrate(drizzle(client), { migrationsFolder: migrationsFolder() });
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => {});
    await client.end();
  }
}
