import "server-only";
import pg from "pg";

/**
 * Whether the first start's bootstrap (lib/bootstrap.ts) has run on this database: its last
 * step stamps settings.initialized_at. One query on a connection of its own, so that a restart
 * loads neither the bootstrap's modules (password hashing, validation, transactions) nor Drizzle
 * and the schema, and opens no transaction.
 */
export async function isInitialized(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const r = await client.query<{ done: boolean }>("select initialized_at is not null as done from settings where id = 1");
    return r.rows[0]?.done === true;
  } finally {
    await client.end().catch(() => {});
  }
}
