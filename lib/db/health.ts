import pg from "pg";
import { databaseUrl } from ".";

interface EmbeddedState {
  state(): "running" | "restarting" | "stopped";
}

// Kept on globalThis: server.ts and the route bundles Next.js compiles are separate module graphs.
const g = globalThis as unknown as { __defguardEmbeddedDb?: EmbeddedState };

/** server.ts registers the embedded server it supervises, so health knows when it is restarting. */
export function registerEmbeddedDb(db: EmbeddedState | null): void {
  g.__defguardEmbeddedDb = db ?? undefined;
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

const UNAVAILABLE_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "57P01", "57P02", "57P03", "53300"]);
const UNAVAILABLE_TEXT = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection terminated due to connection timeout/;

/**
 * Whether an error means the database is unreachable or restarting (not a fault of the
 * request): connection refused or lost, the server shutting down or starting up, SQLSTATE
 * class 08. drizzle wraps driver errors, so the cause chain is searched.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (typeof e !== "object") return false;
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (UNAVAILABLE_CODES.has(code) || code.startsWith("08"))) return true;
    const errors = (e as { errors?: unknown }).errors; // AggregateError from a dual-stack connect
    if (Array.isArray(errors) && errors.some((x) => isDatabaseUnavailable(x))) return true;
    const msg = (e as { message?: unknown }).message;
    if (typeof msg === "string" && UNAVAILABLE_TEXT.test(msg)) return true;
  }
  return false;
}
