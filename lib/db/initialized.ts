import "server-only";
import { getPool } from ".";

/**
 * Whether the first start's bootstrap (lib/bootstrap.ts) has run on this database: its last
 * step stamps settings.initialized_at. One query on the shared pool, so that a restart neither
 * loads the bootstrap's modules (password hashing, validation, transactions) nor opens its
 * transaction, and the pool has a connection ready for the first request.
 */
export async function isInitialized(): Promise<boolean> {
  const r = await getPool().query<{ done: boolean }>("select initialized_at is not null as done from settings where id = 1");
  return r.rows[0]?.done === true;
}
