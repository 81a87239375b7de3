import "server-only";
import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "./schema";
import { databaseUrl } from "./url";

export type Db = NodePgDatabase<typeof schema>;
/** A transaction handle or the database itself: services accept either. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0] | Db;

interface Holder {
  url: string;
  pool: pg.Pool;
  db: Db;
  statsPool?: pg.Pool;
  lazyPool?: pg.Pool;
  lazyDb?: Db;
}

// Kept on globalThis: server.ts and the route bundles Next.js compiles are separate module
// graphs in one process, and must share one pool.
const g = globalThis as unknown as { __defguardDb?: Holder };

// Apart, so that the start-up path (server.ts, lib/health) reaches it without Drizzle and the schema.
export { databaseUrl };

function holder(): Holder {
  const url = databaseUrl();
  if (!g.__defguardDb || g.__defguardDb.url !== url) {
    // A bounded connect time: while the database is down or restarting, requests fail (503)
    // instead of queueing forever; the pool opens new connections once it is back.
    const pool = new pg.Pool({
      connectionString: url,
      max: Number(process.env.DEFGUARD_DB_POOL_SIZE || 20),
      connectionTimeoutMillis: 5000,
    });
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

/**
 * A small pool for gateway statistics writes, with synchronous_commit off on its connections:
 * a crash may lose the last fraction of a second of samples (gateways send them again every
 * period), and each batch is one round trip that never waits on a WAL flush.
 */
export function getStatsPool(): pg.Pool {
  const h = holder();
  if (!h.statsPool) {
    h.statsPool = new pg.Pool({ connectionString: h.url, max: 2, connectionTimeoutMillis: 5000, options: "-c synchronous_commit=off" });
    h.statsPool.on("error", (err) => console.error("[db] idle stats client error:", err.message));
  }
  return h.statsPool;
}

/**
 * Drizzle on a small pool whose connections commit without waiting for the WAL flush
 * (synchronous_commit off), for bookkeeping that may be lost if the database server itself
 * crashes, and only then: the outbox worker's claims and delivery states (a lost one means a
 * delivery is sent again, which at-least-once allows). Its commits are visible to every other
 * session at once, like any commit. Keeping these frequent small commits off the flush queue
 * keeps them from making user changes wait behind them.
 */
export function getLazyCommitDb(): Db {
  const h = holder();
  if (!h.lazyDb) {
    h.lazyPool = new pg.Pool({ connectionString: h.url, max: 4, connectionTimeoutMillis: 5000, options: "-c synchronous_commit=off" });
    h.lazyPool.on("error", (err) => console.error("[db] idle client error:", err.message));
    h.lazyDb = drizzle(h.lazyPool, { schema });
  }
  return h.lazyDb;
}

export async function closeDb(): Promise<void> {
  const h = g.__defguardDb;
  g.__defguardDb = undefined;
  if (h) await Promise.all([h.pool.end(), h.statsPool?.end(), h.lazyPool?.end()]);
}

export { schema };
