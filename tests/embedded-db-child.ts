/**
 * A stand-in console for tests/embedded-db.test.ts: starts the embedded PostgreSQL on the
 * given directory, optionally commits `rows` rows into table t, prints one JSON line
 * {url, pid} and keeps running until SIGTERM (which stops PostgreSQL cleanly). On a start-up
 * failure it prints the message like server.ts does and exits 1.
 *
 *   node --import ./scripts/server-only-hook.mjs --import tsx tests/embedded-db-child.ts <dir> <password> [rows] [port]
 */
import pg from "pg";
import { startEmbeddedPostgres } from "../lib/db/embedded";

async function main() {
  const [dir, password, rows, port] = process.argv.slice(2);
  const db = await startEmbeddedPostgres(dir, password, port ? { port: Number(port) } : {});
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  await c.query("CREATE TABLE IF NOT EXISTS t (n int PRIMARY KEY)");
  for (let i = 0; i < Number(rows || 0); i++) await c.query("INSERT INTO t VALUES ($1) ON CONFLICT DO NOTHING", [i]);
  await c.end();
  process.stdout.write(`${JSON.stringify({ url: db.url, pid: db.pid(), dir: db.dir })}\n`);
  process.on("SIGTERM", () => void db.stop().then(() => process.exit(0)));
  setInterval(() => {}, 60_000);
}

main().catch((err) => {
  console.error(`[defguard] start-up failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
