/**
 * Domain errors. Services throw these; the route wrapper in lib/http maps them to statuses.
 * `msg` is what the client sees, so it must never carry internals.
 */
export class AppError extends Error {
  constructor(
    readonly status: 400 | 401 | 402 | 403 | 404 | 409 | 413 | 415 | 422 | 428 | 429 | 503,
    readonly msg: string,
    readonly field?: string,
    /** Machine-readable `code` in the body and extra response headers (e.g. Retry-After). */
    readonly extra: { code?: string; headers?: Record<string, string> } = {},
  ) {
    super(msg);
    this.name = "AppError";
  }
}

export const badRequest = (msg: string, field?: string) => new AppError(400, field ? `${field}: ${msg}` : msg, field);
export const unauthorized = (msg = "unauthorized") => new AppError(401, msg);
export const forbidden = (msg = "forbidden") => new AppError(403, msg);
export const notFound = (msg = "not found") => new AppError(404, msg);
export const conflict = (msg: string, field?: string) => new AppError(409, msg, field);
export const unprocessable = (msg: string, field?: string) => new AppError(422, msg, field);
/** 429; with `retryAfterSeconds` the answer carries a Retry-After header. */
export const tooManyRequests = (msg: string, retryAfterSeconds?: number) =>
  new AppError(429, msg, undefined, retryAfterSeconds ? { headers: { "retry-after": String(Math.max(1, Math.ceil(retryAfterSeconds))) } } : {});

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
