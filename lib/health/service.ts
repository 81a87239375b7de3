import "server-only";
import pg from "pg";
import { databaseUrl } from "../db/url";

interface EmbeddedState {
  state(): "running" | "restarting" | "stopped";
}

// Kept on globalThis: server.ts and the route bundles Next.js compiles are separate module graphs.
const g = globalThis as unknown as { __defguardEmbeddedDb?: EmbeddedState; __defguardGatewaySideStarting?: boolean };

/** server.ts registers the embedded server it supervises, so health knows when it is restarting. */
export function registerEmbeddedDb(db: EmbeddedState | null): void {
  g.__defguardEmbeddedDb = db ?? undefined;
}

/**
 * server.ts starts the gateway side (event listener, gRPC server, jobs) right after the console
 * starts answering; until it is up, health says "starting" (503), so a load balancer or a test
 * that waits for health also finds gateways able to connect. API requests are served meanwhile.
 */
export function setGatewaySideStarting(starting: boolean): void {
  g.__defguardGatewaySideStarting = starting;
}

export function gatewaySideStarting(): boolean {
  return g.__defguardGatewaySideStarting === true;
}

/**
 * True when the database accepts a new connection and answers a trivial query within
 * `timeoutMs`. A fresh connection, not one from the pool: a server in shutdown still answers on
 * the sessions it has but refuses new ones, and a pooled check would report it healthy. While
 * the embedded server is being restarted the answer is false without trying.
 */
export async function databaseReachable(timeoutMs = 2000): Promise<boolean> {
  if (g.__defguardEmbeddedDb && g.__defguardEmbeddedDb.state() !== "running") return false;
  const client = new pg.Client({ connectionString: databaseUrl(), connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    client.end().catch(() => {});
  }
}

export { isDatabaseUnavailable } from "../errors";
