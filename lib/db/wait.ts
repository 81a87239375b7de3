import "server-only";
import pg from "pg";
import { isDatabaseUnavailable } from "../errors";

/** A start-up problem the operator fixes from one line of log: printed without a stack trace. */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StartupError";
  }
}

/** host:port/database of a PostgreSQL URL, never the password (for log lines). */
export function describeDatabaseUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || "localhost"}:${u.port || 5432}${u.pathname && u.pathname !== "/" ? u.pathname : ""}`;
  } catch {
    return "(unparsable URL)";
  }
}

/** Refuse a DATABASE_URL that is not a postgres:// or postgresql:// URL. */
export function checkDatabaseUrl(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new StartupError("DATABASE_URL is not a valid URL: expected postgres://user:password@host:5432/database");
  }
  if (u.protocol !== "postgres:" && u.protocol !== "postgresql:") {
    throw new StartupError(`DATABASE_URL must start with postgres:// or postgresql:// (got ${u.protocol}//)`);
  }
}

// 57P03: the server is starting up. 3D000 (database does not exist): a server that has just
// started may still be creating it (an init script or job); a wrong name ends at the timeout.
const TRANSIENT_CODES = new Set(["ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "57P03", "3D000"]);

function transient(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return (typeof code === "string" && TRANSIENT_CODES.has(code)) || isDatabaseUnavailable(err);
}

function reason(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown; errors?: { message?: string }[] };
  const msg = typeof e.message === "string" && e.message ? e.message : Array.isArray(e.errors) ? (e.errors[0]?.message ?? "") : String(err);
  return typeof e.code === "string" && !msg.includes(e.code) ? `${e.code} ${msg}` : msg;
}

export interface WaitOptions {
  log: (line: string) => void;
  /** Give up after this long (DEFGUARD_DB_WAIT_TIMEOUT seconds, default 120). */
  timeoutMs?: number;
  /** First retry delay (doubles up to maxDelayMs). */
  initialDelayMs?: number;
  maxDelayMs?: number;
}

export function dbWaitTimeoutMs(): number {
  const n = Number(process.env.DEFGUARD_DB_WAIT_TIMEOUT);
  return (Number.isFinite(n) && n >= 0 ? n : 120) * 1000;
}

/**
 * Wait for an external PostgreSQL at start-up: while it is unreachable (not resolvable,
 * refusing, starting up), retry with backoff (0.5 s doubling to 10 s) and say so in the log;
 * refuse at once what waiting cannot fix (wrong password, TLS mismatch) and
 * give up after the timeout. Every failure is one StartupError line without the password.
 */
export async function waitForDatabase(url: string, opts: WaitOptions): Promise<void> {
  checkDatabaseUrl(url);
  const where = describeDatabaseUrl(url);
  const deadline = Date.now() + (opts.timeoutMs ?? dbWaitTimeoutMs());
  let delay = opts.initialDelayMs ?? 500;
  const maxDelay = opts.maxDelayMs ?? 10_000;
  for (let attempt = 1; ; attempt++) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    client.on("error", () => {});
    try {
      await client.connect();
      await client.query("select 1");
      if (attempt > 1) opts.log(`database ${where} is reachable (after ${attempt} attempts)`);
      return;
    } catch (err) {
      if (!transient(err)) throw new StartupError(`cannot use the database ${where}: ${reason(err)}`);
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new StartupError(`the database ${where} stayed unreachable (${reason(err)}); gave up after ${attempt} attempts (DEFGUARD_DB_WAIT_TIMEOUT)`);
      }
      const wait = Math.min(delay, left);
      opts.log(`waiting for the database ${where}: ${reason(err)}; retrying in ${(wait / 1000).toFixed(1)} s`);
      await new Promise((r) => setTimeout(r, wait));
      delay = Math.min(delay * 2, maxDelay);
    } finally {
      await client.end().catch(() => {});
    }
  }
}
