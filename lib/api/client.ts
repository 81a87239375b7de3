/**
 * The one typed client the browser uses for /api/v1:
 * JSON in and out, same-origin cookies, X-XSRF-TOKEN on every non-GET request, every null
 * stripped from response bodies, 4xx -> ApiBadRequestError, 5xx -> ApiBadResponseError,
 * and no timeout.
 */
export const API_BASE = "/api/v1";
const XSRF_COOKIE = "XSRF-TOKEN";
const XSRF_HEADER = "X-XSRF-TOKEN";

/** The type of a value after stripNulls: `T | null` fields become optional `T`. */
export type Stripped<T> = T extends null
  ? undefined
  : T extends readonly (infer U)[]
    ? Stripped<Exclude<U, null>>[]
    : T extends object
      ? { [K in keyof T as null extends T[K] ? never : K]: Stripped<T[K]> } & {
          [K in keyof T as null extends T[K] ? K : never]?: Stripped<Exclude<T[K], null>>;
        }
      : T;

/** Removes every null: object fields holding null are dropped, null array items are left out. */
export function stripNulls<T>(value: T): Stripped<T> {
  return strip(value) as Stripped<T>;
}

function strip(value: unknown): unknown {
  if (value === null) return undefined;
  if (Array.isArray(value)) return value.filter((v) => v !== null).map(strip);
  if (typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      if (v !== null) out[k] = strip(v);
    }
    return out;
  }
  return value;
}

/** A 4xx answer: the request was refused; `msg` is the server's reason, `field` the input it names. */
export class ApiBadRequestError extends Error {
  constructor(
    readonly status: number,
    readonly msg: string,
    readonly field?: string,
    /** Machine-readable reason when the server gives one (e.g. "mfa_setup_required"). */
    readonly code?: string,
    /** The whole answer, for screens that show more of a refusal (e.g. the LDAP test's steps). */
    readonly body?: unknown,
  ) {
    super(msg);
    this.name = "ApiBadRequestError";
  }
}

/** A 5xx (or otherwise unusable) answer. */
export class ApiBadResponseError extends Error {
  constructor(
    readonly status: number,
    readonly msg?: string,
  ) {
    super(msg ?? `server answered ${status}`);
    this.name = "ApiBadResponseError";
  }
}

export type QueryValue = string | number | boolean | undefined | readonly (string | number | boolean)[];

export interface RequestOptions {
  /** Query parameters; arrays are sent as repeated parameters, undefined ones are left out. */
  query?: Record<string, QueryValue>;
  signal?: AbortSignal;
}

function readCookie(name: string): string | undefined {
  if (typeof document === "undefined") return undefined;
  for (const part of document.cookie.split(";")) {
    const i = part.indexOf("=");
    if (i > 0 && part.slice(0, i).trim() === name) {
      const raw = part.slice(i + 1).trim();
      try {
        return decodeURIComponent(raw);
      } catch {
        return raw;
      }
    }
  }
  return undefined;
}

function buildUrl(path: string, query?: RequestOptions["query"]): string {
  if (!path.startsWith("/")) throw new Error(`API path must start with "/": ${path}`);
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) params.append(key, String(v));
  }
  const qs = params.toString();
  return `${API_BASE}${path}${qs ? `?${qs}` : ""}`;
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function messageOf(body: unknown): string | undefined {
  if (body && typeof body === "object" && typeof (body as { msg?: unknown }).msg === "string") {
    return (body as { msg: string }).msg;
  }
  return typeof body === "string" && body ? body : undefined;
}

export interface ApiResponse<T> {
  status: number;
  data: Stripped<T>;
}

/** The 403 `code` of a change to sign-in security whose session must prove itself again. */
export const REAUTH_REQUIRED_CODE = "reauth_required";

/**
 * Asks the user to confirm their identity (POST /auth/reauth); resolves true once they did,
 * false when they cancelled. Registered by the ReauthDialog mounted with the app's providers.
 */
export type ReauthHandler = () => Promise<boolean>;
let reauthHandler: ReauthHandler | null = null;
let reauthPending: Promise<boolean> | null = null;

/** Register the handler for 403 reauth_required; returns a function that removes it. */
export function setReauthHandler(handler: ReauthHandler): () => void {
  reauthHandler = handler;
  return () => {
    if (reauthHandler === handler) reauthHandler = null;
  };
}

/** One dialog for however many requests were refused at once. */
function askReauth(): Promise<boolean> {
  if (!reauthHandler) return Promise.resolve(false);
  reauthPending ??= reauthHandler().finally(() => {
    reauthPending = null;
  });
  return reauthPending;
}

/** The 403 `code` of an enterprise feature while the free tier is exceeded without a licence. */
export const LICENSE_REQUIRED_CODE = "license_required";

/** Told of every 403 license_required (the upgrade dialog mounted with the app's providers). */
export type LicenceRequiredHandler = (msg: string) => void;
let licenceRequiredHandler: LicenceRequiredHandler | null = null;

/** Register the handler for 403 license_required; returns a function that removes it. */
export function setLicenceRequiredHandler(handler: LicenceRequiredHandler): () => void {
  licenceRequiredHandler = handler;
  return () => {
    if (licenceRequiredHandler === handler) licenceRequiredHandler = null;
  };
}

/**
 * Sends one request; resolves with the status and the null-stripped body of a 2xx answer.
 * A 403 reauth_required asks the user to confirm their identity and, once they have, sends
 * the request again (once); if they cancel, the 403 is thrown as usual.
 */
export async function apiRequest<T>(
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  body?: unknown,
  opts: RequestOptions = {},
): Promise<ApiResponse<T>> {
  try {
    return await sendRequest<T>(method, path, body, opts);
  } catch (err) {
    if (err instanceof ApiBadRequestError && err.status === 403 && err.code === REAUTH_REQUIRED_CODE && (await askReauth())) {
      return sendRequest<T>(method, path, body, opts);
    }
    if (err instanceof ApiBadRequestError && err.status === 403 && err.code === LICENSE_REQUIRED_CODE) licenceRequiredHandler?.(err.message);
    throw err;
  }
}

async function sendRequest<T>(
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  body: unknown,
  opts: RequestOptions,
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET") {
    const xsrf = readCookie(XSRF_COOKIE);
    if (xsrf) headers[XSRF_HEADER] = xsrf;
  }
  const res = await fetch(buildUrl(path, opts.query), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
    signal: opts.signal,
  });
  const data = stripNulls(await readBody(res));
  if (res.status >= 200 && res.status < 300) return { status: res.status, data: data as Stripped<T> };
  const msg = messageOf(data);
  if (res.status >= 400 && res.status < 500) {
    const { field, code } = (data ?? {}) as { field?: unknown; code?: unknown };
    throw new ApiBadRequestError(
      res.status,
      msg ?? res.statusText,
      typeof field === "string" ? field : undefined,
      typeof code === "string" ? code : undefined,
      data,
    );
  }
  throw new ApiBadResponseError(res.status, msg);
}

async function dataOf<T>(p: Promise<ApiResponse<T>>): Promise<Stripped<T>> {
  return (await p).data;
}

/** Shorthands returning only the body; use apiRequest when the status matters (e.g. 200 vs 201). */
export const api = {
  get: <T>(path: string, opts?: RequestOptions) => dataOf<T>(apiRequest<T>("GET", path, undefined, opts)),
  post: <T>(path: string, body?: unknown, opts?: RequestOptions) => dataOf<T>(apiRequest<T>("POST", path, body, opts)),
  put: <T>(path: string, body?: unknown, opts?: RequestOptions) => dataOf<T>(apiRequest<T>("PUT", path, body, opts)),
  patch: <T>(path: string, body?: unknown, opts?: RequestOptions) => dataOf<T>(apiRequest<T>("PATCH", path, body, opts)),
  delete: <T>(path: string, body?: unknown, opts?: RequestOptions) =>
    dataOf<T>(apiRequest<T>("DELETE", path, body, opts)),
};
