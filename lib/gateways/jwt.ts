import "server-only";
import { createHmac } from "node:crypto";
import { safeEqual } from "../crypto";

/**
 * HS256 JWTs for gateways and provisioning workers (docs/gateway-protocol.md): claims
 * iss "DefGuard", sub "DEFGUARD-NETWORK-<locationId>" (workers: "DEFGUARD-WORKER"),
 * client_id, exp, nbf. Written with node:crypto; no library needed for one algorithm.
 *
 * Gateway tokens may carry one more claim, `gen`: the location's token generation when it was
 * issued (absent = 0, so tokens issued before any rotation look exactly like defguard's).
 * Gateways pass the token through unread, so the extra claim does not disturb them.
 */
export const ISSUER = "DefGuard";
const TEN_YEARS = 10 * 365 * 24 * 3600;

const b64 = (v: string | Buffer) => Buffer.from(v).toString("base64url");

export interface Claims {
  iss: string;
  sub: string;
  client_id: string;
  exp: number;
  nbf: number;
  gen?: number;
}

export function signJwt(claims: Claims, secret: string): string {
  const head = b64(JSON.stringify({ alg: "HS256", typ: "JWT" }));
  const body = b64(JSON.stringify(claims));
  const sig = createHmac("sha256", secret).update(`${head}.${body}`).digest("base64url");
  return `${head}.${body}.${sig}`;
}

/** Verified claims, or null for anything malformed, forged, expired or not yet valid. */
export function verifyJwt(token: string, secret: string, nowSec = Math.floor(Date.now() / 1000)): Claims | null {
  if (typeof token !== "string" || token.length > 4096) return null;
  const parts = token.split(".");
  if (parts.length !== 3) return null;
  const [head, body, sig] = parts;
  const expected = createHmac("sha256", secret).update(`${head}.${body}`).digest("base64url");
  if (!safeEqual(sig, expected)) return null;
  try {
    const h = JSON.parse(Buffer.from(head, "base64url").toString("utf8"));
    if (h.alg !== "HS256") return null;
    const c = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Claims;
    if (c.iss !== ISSUER || typeof c.sub !== "string" || typeof c.exp !== "number") return null;
    if (c.exp < nowSec || (typeof c.nbf === "number" && c.nbf > nowSec + 60)) return null;
    return c;
  } catch {
    return null;
  }
}

export function gatewayToken(locationId: number, secret: string, generation = 0, nowSec = Math.floor(Date.now() / 1000)): string {
  const claims: Claims = { iss: ISSUER, sub: `DEFGUARD-NETWORK-${locationId}`, client_id: String(locationId), exp: nowSec + TEN_YEARS, nbf: nowSec };
  if (generation > 0) claims.gen = generation;
  return signJwt(claims, secret);
}

/** The location a gateway token is for and the token generation it carries, or null. */
export function gatewayFromToken(token: string, secret: string): { locationId: number; generation: number } | null {
  const c = verifyJwt(token, secret);
  if (!c) return null;
  const m = /^DEFGUARD-NETWORK-(\d{1,10})$/.exec(c.sub);
  if (!m || c.client_id !== m[1]) return null;
  const generation = c.gen ?? 0;
  if (!Number.isSafeInteger(generation) || generation < 0) return null;
  return { locationId: Number(m[1]), generation };
}
