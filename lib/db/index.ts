import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "./schema";

export type Db = NodePgDatabase<typeof schema>;
/** A transaction handle or the database itself: services accept either. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0] | Db;

interface Holder {
  url: string;
  pool: pg.Pool;
  db: Db;
}

// Kept on globalThis: server.ts and the route bundles Next.js compiles are separate module
// graphs in one process, and must share one pool.
const g = globalThis as unknown as { __defguardDb?: Holder };

export function databaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set (server start-up provides it)");
  return url;
}

function holder(): Holder {
  const url = databaseUrl();
  if (!g.__defguardDb || g.__defguardDb.url !== url) {
    const pool = new pg.Pool({ connectionString: url, max: Number(process.env.DEFGUARD_DB_POOL_SIZE || 20) });
    pool.on("error", (err) => console.error("[db] idle client error:", err.message));
    g.__defguardDb = { url, pool, db: drizzle(pool, { schema }) };
  }
  return g.__defguardDb;
}

export function getPool(): pg.Pool {
  return holder().pool;
}

export function getDb(): Db {
  return holder().db;
}

export async function closeDb(): Promise<void> {
  const h = g.__defguardDb;
  g.__defguardDb = undefined;
  if (h) await h.pool.end();
}

export { schema };
