/**
 * Test databases: clones of the migrated template on the run's embedded PostgreSQL
 * (see tests/setup/global.ts). Only usable inside a vitest worker (uses `inject`).
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { closeDb } from "../../lib/db";

export function urlForDatabase(name: string): string {
  const u = new URL(inject("pgAdminUrl"));
  u.pathname = `/${name}`;
  return u.toString();
}

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: inject("pgAdminUrl") });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Create a database and return its URL. `fromTemplate: false` gives an empty (unmigrated)
 * database, e.g. to test the migrator itself.
 */
export async function createTestDatabase(opts: { fromTemplate?: boolean } = {}): Promise<string> {
  const name = `test_${randomBytes(6).toString("hex")}`;
  const template = opts.fromTemplate === false ? "template0" : inject("pgTemplate");
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${template}`);
      break;
    } catch (err) {
      // Two clones started at the same instant can collide on the template; retry briefly.
      if (attempt >= 5 || !/being accessed by other users/.test(String(err))) throw err;
      await new Promise((r) => setTimeout(r, 100 * (attempt + 1)));
    }
  }
  return urlForDatabase(name);
}

/** Point the app (process.env.DATABASE_URL, the shared pool) at a brand-new cloned database. */
export async function useFreshDatabase(opts: { fromTemplate?: boolean } = {}): Promise<string> {
  await closeDb();
  const url = await createTestDatabase(opts);
  process.env.DATABASE_URL = url;
  return url;
}
