/**
 * Errors as they may be written to the log. A failed database statement carries its bound
 * parameters (Drizzle puts them in the message, pg puts row values in `detail` and in some
 * messages), and parameters can be password hashes, TOTP secrets, tokens or keys: the log gets
 * the statement, the SQLSTATE and the message, never the values.
 */

interface PgLike {
  code?: unknown;
  message?: unknown;
  detail?: unknown;
  table?: unknown;
  constraint?: unknown;
}

function isDbError(e: unknown): e is PgLike & Error {
  if (!(e instanceof Error)) return false;
  const x = e as PgLike & { severity?: unknown; routine?: unknown };
  return typeof x.code === "string" && /^[0-9A-Z]{5}$/.test(x.code) && (x.severity !== undefined || x.routine !== undefined);
}

/** pg messages of the data-exception class quote the offending value: keep the message, mask the value. */
function maskedPgMessage(e: PgLike): string {
  const msg = String(e.message ?? "");
  return typeof e.code === "string" && e.code.startsWith("22") ? msg.replace(/"[^"]*"/g, '"…"') : msg;
}

function stackFrames(e: Error): string {
  return (e.stack ?? "").split("\n").filter((l) => /^\s+at /.test(l)).join("\n");
}

/** One log-safe description of any thrown value (with the stack frames, without parameters). */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const q = err as Error & { query?: unknown; params?: unknown };
  if (typeof q.query === "string" && "params" in q) {
    const cause = q.cause;
    const why = isDbError(cause)
      ? `${cause.code} ${maskedPgMessage(cause)}${cause.constraint ? ` (constraint ${String(cause.constraint)})` : ""}`
      : cause instanceof Error
        ? cause.message
        : "";
    return `failed query: ${q.query} [parameters not logged]${why ? `: ${why}` : ""}\n${stackFrames(err)}`;
  }
  if (isDbError(err)) {
    return `database error ${err.code} ${maskedPgMessage(err)}${err.constraint ? ` (constraint ${String(err.constraint)})` : ""}\n${stackFrames(err)}`;
  }
  return err.stack ?? `${err.name}: ${err.message}`;
}
