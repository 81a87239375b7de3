import "server-only";
import { createPublicKey, verify, type KeyObject } from "node:crypto";

/**
 * Offline licence keys (docs/licence.md): `DGL1.<payload>.<signature>`, both parts base64url
 * without padding. The payload is UTF-8 JSON; the signature is Ed25519 over the ASCII bytes
 * `DGL1.<payload>` (prefix included, so a signature made for another format never verifies).
 * The console trusts the public key below, plus the one in DEFGUARD_LICENSE_EXTRA_PUBLIC_KEY when
 * that is set (testing and air-gapped resellers; see docs/licence.md for why it is safe).
 * `scripts/license.mjs` makes key pairs and signs licences.
 */
export const LICENCE_PREFIX = "DGL1";

/** The operator's licence-signing public key (raw Ed25519, base64url). */
export const LICENCE_PUBLIC_KEY = "SWKB52u4jLLOrlqHDHz6-2ovT2M84s0ohtdR7DDcroA";

/** Extra trusted public key (raw Ed25519, base64url), read at call time. */
export const EXTRA_KEY_ENV = "DEFGUARD_LICENSE_EXTRA_PUBLIC_KEY";

/** How long a subscription keeps working past its valid-until date (defguard: 14 days). */
export const SUBSCRIPTION_GRACE_MS = 14 * 24 * 3600 * 1000;

export type LicenceTier = "Business" | "Enterprise";

export interface LicenceLimits {
  users: number;
  devices: number;
  locations: number;
  network_devices: number;
}

export interface Licence {
  /** Licence id chosen by the signer (shown, not interpreted). */
  id: string;
  customer: string;
  tier: LicenceTier;
  subscription: boolean;
  /** ISO 8601 instant. */
  valid_until: string;
  /** null: unlimited. */
  limits: LicenceLimits | null;
  issued_at: string;
}

export class LicenceError extends Error {}

const B64URL = /^[A-Za-z0-9_-]+$/;

function trustedKeys(): KeyObject[] {
  const raw = [LICENCE_PUBLIC_KEY, process.env[EXTRA_KEY_ENV]?.trim() || ""].filter(Boolean);
  const keys: KeyObject[] = [];
  for (const x of raw) {
    if (!B64URL.test(x) || Buffer.from(x, "base64url").length !== 32) continue;
    keys.push(createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x }, format: "jwk" }));
  }
  return keys;
}

function isCount(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 2 ** 31;
}

function parsePayload(json: unknown): Licence {
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new LicenceError("the licence payload is not an object");
  const p = json as Record<string, unknown>;
  if (p.v !== 1) throw new LicenceError("unknown licence version");
  if (typeof p.customer !== "string" || !p.customer.trim()) throw new LicenceError("the licence names no customer");
  if (p.tier !== "Business" && p.tier !== "Enterprise") throw new LicenceError("unknown licence tier");
  if (typeof p.subscription !== "boolean") throw new LicenceError("the licence has no subscription flag");
  if (typeof p.valid_until !== "string" || Number.isNaN(Date.parse(p.valid_until))) throw new LicenceError("the licence has no valid-until date");
  let limits: LicenceLimits | null = null;
  if (p.limits !== null && p.limits !== undefined) {
    const l = p.limits as Record<string, unknown>;
    if (typeof l !== "object" || !isCount(l.users) || !isCount(l.devices) || !isCount(l.locations) || !isCount(l.network_devices)) {
      throw new LicenceError("the licence limits are malformed");
    }
    limits = { users: l.users, devices: l.devices, locations: l.locations, network_devices: l.network_devices };
  }
  return {
    id: typeof p.id === "string" ? p.id : "",
    customer: p.customer,
    tier: p.tier,
    subscription: p.subscription,
    valid_until: new Date(p.valid_until).toISOString(),
    limits,
    issued_at: typeof p.issued_at === "string" ? p.issued_at : "",
  };
}

const cache = new Map<string, Licence | LicenceError>();

/**
 * The licence a key carries, when it is well formed and signed by a trusted key; throws a
 * LicenceError saying what is wrong otherwise. Results are remembered per key text (a handful
 * of keys at most are ever seen), so gated requests do not verify the signature again.
 */
export function decodeLicence(key: string): Licence {
  const text = key.trim();
  const extra = process.env[EXTRA_KEY_ENV] ?? "";
  const cacheKey = `${extra}\n${text}`;
  const hit = cache.get(cacheKey);
  if (hit instanceof LicenceError) throw hit;
  if (hit) return hit;
  let result: Licence | LicenceError;
  try {
    result = decodeUncached(text);
  } catch (err) {
    if (!(err instanceof LicenceError)) throw err;
    result = err;
  }
  if (cache.size > 32) cache.clear();
  cache.set(cacheKey, result);
  if (result instanceof LicenceError) throw result;
  return result;
}

function decodeUncached(text: string): Licence {
  const parts = text.split(".");
  if (parts.length !== 3 || parts[0] !== LICENCE_PREFIX || !B64URL.test(parts[1]) || !B64URL.test(parts[2])) {
    throw new LicenceError("not a licence key (expected DGL1.<payload>.<signature>)");
  }
  const signature = Buffer.from(parts[2], "base64url");
  if (signature.length !== 64) throw new LicenceError("the licence signature is malformed");
  const signed = Buffer.from(`${parts[0]}.${parts[1]}`, "ascii");
  const keys = trustedKeys();
  if (!keys.some((k) => verify(null, signed, k, signature))) {
    throw new LicenceError("the licence signature does not match (altered, or signed by an unknown key)");
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8"));
  } catch {
    throw new LicenceError("the licence payload is not JSON");
  }
  return parsePayload(json);
}

export type LicenceState = "valid" | "grace" | "expired";

/** valid until valid_until; a subscription then has a grace period; expired after that. */
export function licenceState(l: Licence, now = Date.now()): LicenceState {
  const until = Date.parse(l.valid_until);
  if (now <= until) return "valid";
  if (l.subscription && now <= until + SUBSCRIPTION_GRACE_MS) return "grace";
  return "expired";
}

/** The end of the grace period of a subscription, or null for a one-off licence. */
export function graceUntil(l: Licence): string | null {
  return l.subscription ? new Date(Date.parse(l.valid_until) + SUBSCRIPTION_GRACE_MS).toISOString() : null;
}
