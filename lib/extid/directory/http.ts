import "server-only";
/**
 * HTTP for directory sync: the providers' fixed API hosts, JSON requests with a timeout, and
 * failures turned into sentences an administrator can act on.
 *
 * The hosts are overridable only by tests (`setDirectoryEndpointsForTests`, refused outside
 * vitest), so each provider's client can be exercised against a local stand-in that speaks
 * its API. Okta needs no override: its API lives at the configured Okta domain.
 */
import { createPrivateKey, randomUUID, sign, type JsonWebKey, type KeyObject } from "node:crypto";

export const DEFAULT_ENDPOINTS = {
  googleToken: "https://oauth2.googleapis.com/token",
  googleAdmin: "https://admin.googleapis.com",
  microsoftLogin: "https://login.microsoftonline.com",
  microsoftGraph: "https://graph.microsoft.com",
  jumpcloud: "https://console.jumpcloud.com",
} as const;
export type Endpoints = { -readonly [K in keyof typeof DEFAULT_ENDPOINTS]: string };

let endpoints: Endpoints = { ...DEFAULT_ENDPOINTS };

export function directoryEndpoints(): Endpoints {
  return endpoints;
}

/** Tests only: point the providers' clients at local stand-ins (or back, with no argument). */
export function setDirectoryEndpointsForTests(o?: Partial<Endpoints>): void {
  if (!process.env.VITEST) throw new Error("directory endpoints can be overridden only in tests");
  endpoints = { ...DEFAULT_ENDPOINTS, ...(o ?? {}) };
}

/** A directory failure with a message for the settings screen and the sync status. */
export class DirectoryError extends Error {
  /** The HTTP status of the provider's answer, when the failure was one. */
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "DirectoryError";
  }
}

const TIMEOUT_MS = 15_000;
/** Safety stop for pagination loops (200 per page: 200,000 items). */
export const MAX_PAGES = 1000;

function describeFetchFailure(url: string, err: unknown): string {
  const e = err as { name?: string; cause?: { code?: string; message?: string } };
  const host = (() => {
    try {
      return new URL(url).host;
    } catch {
      return url;
    }
  })();
  if (e.name === "TimeoutError" || e.name === "AbortError") return `${host} did not answer within ${TIMEOUT_MS / 1000} s`;
  const code = e.cause?.code;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return `${host} could not be found (DNS)`;
  if (code === "ECONNREFUSED") return `${host} refused the connection (unreachable)`;
  if (code && /CERT|SSL|TLS/i.test(code)) return `the TLS certificate of ${host} is invalid (${code})`;
  return `${host} could not be reached: ${e.cause?.message ?? (err as Error).message ?? String(err)}`;
}

export interface HttpAnswer<T> {
  status: number;
  body: T;
  headers: Headers;
}

/** One request; 2xx answers are parsed as JSON, anything else becomes a DirectoryError naming `what`. */
export async function requestJson<T>(what: string, url: string, init: RequestInit = {}): Promise<HttpAnswer<T>> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, redirect: "error", signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: "application/json", ...(init.headers ?? {}) } });
  } catch (err) {
    throw new DirectoryError(`${what}: ${describeFetchFailure(url, err)}`);
  }
  const text = await res.text();
  if (!res.ok) {
    let detail = "";
    try {
      const j = JSON.parse(text) as { error_description?: string; error?: unknown; errorSummary?: string; message?: string };
      const err = j.error as { message?: string } | string | undefined;
      detail = j.error_description ?? j.errorSummary ?? (typeof err === "string" ? err : err?.message) ?? j.message ?? "";
    } catch {
      detail = text.slice(0, 200);
    }
    const reason = res.status === 401 || res.status === 403 ? "the credentials were refused" : res.status === 404 ? "not found" : res.status === 429 ? "rate limited" : "failed";
    throw new DirectoryError(`${what}: ${reason} (HTTP ${res.status}${detail ? `: ${detail}` : ""})`, res.status);
  }
  try {
    return { status: res.status, body: JSON.parse(text) as T, headers: res.headers };
  } catch {
    throw new DirectoryError(`${what}: the answer is not JSON`);
  }
}

/** A form-encoded POST (token endpoints). */
export function formPost<T>(what: string, url: string, form: Record<string, string>): Promise<HttpAnswer<T>> {
  return requestJson<T>(what, url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form).toString() });
}

const b64url = (v: string | Buffer) => Buffer.from(v).toString("base64url");

/** A signed JWT (RS256 for RSA keys, ES256/384/512 for EC keys). */
export function signJwt(key: KeyObject, claims: Record<string, unknown>, kid?: string): string {
  let alg: string;
  let hash: string;
  if (key.asymmetricKeyType === "rsa") {
    alg = "RS256";
    hash = "sha256";
  } else if (key.asymmetricKeyType === "ec") {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    [alg, hash] = curve === "secp384r1" ? ["ES384", "sha384"] : curve === "secp521r1" ? ["ES512", "sha512"] : ["ES256", "sha256"];
  } else throw new DirectoryError(`unsupported key type ${key.asymmetricKeyType}`);
  const header = b64url(JSON.stringify({ alg, typ: "JWT", ...(kid ? { kid } : {}) }));
  const body = b64url(JSON.stringify(claims));
  const input = `${header}.${body}`;
  const sig = sign(hash, Buffer.from(input), key.asymmetricKeyType === "ec" ? { key, dsaEncoding: "ieee-p1363" } : key);
  return `${input}.${b64url(sig)}`;
}

export function pemKey(pem: string): KeyObject {
  try {
    return createPrivateKey({ key: pem, format: "pem" });
  } catch {
    throw new DirectoryError("the service-account private key cannot be read");
  }
}

export function jwkKey(jwk: string): { key: KeyObject; kid?: string } {
  try {
    const parsed = JSON.parse(jwk) as JsonWebKey & { kid?: string };
    return { key: createPrivateKey({ key: parsed, format: "jwk" }), kid: parsed.kid };
  } catch {
    throw new DirectoryError("the private JWK cannot be read");
  }
}

export const newJti = () => randomUUID();

/** `fn`'s answer, or null when the provider said 404 (e.g. a person who is not in the directory). */
export async function nullIfNotFound<T>(fn: () => Promise<T>): Promise<T | null> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof DirectoryError && err.status === 404) return null;
    throw err;
  }
}
