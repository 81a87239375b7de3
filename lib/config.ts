import "server-only";

/**
 * Runtime configuration. Everything is read from process.env at call time (not at import),
 * because Next.js bundles route handlers separately from server.ts: the environment is the
 * one channel both see. server.ts resolves defaults and generated secrets into process.env
 * before the first request is handled.
 */
export function dataDir(): string {
  const dir = process.env.DEFGUARD_DATA_DIR || "./data";
  return dir.startsWith("/") ? dir : `${process.cwd()}/${dir.replace(/^\.\//, "")}`;
}

export function httpPort(): number {
  return Number(process.env.PORT || 8000);
}

export function grpcPort(): number {
  return Number(process.env.DEFGUARD_GRPC_PORT || 50055);
}

/** Address the gRPC server binds (DEFGUARD_GRPC_HOST, default all interfaces). */
export function grpcHost(): string {
  return process.env.DEFGUARD_GRPC_HOST || "0.0.0.0";
}

/**
 * PEM certificate and key files for gRPC over TLS (DEFGUARD_GRPC_CERT, DEFGUARD_GRPC_KEY), or
 * null for plain h2c. Setting only one of the two is a configuration error.
 */
export function grpcTlsFiles(): { cert: string; key: string } | null {
  const cert = process.env.DEFGUARD_GRPC_CERT || "";
  const key = process.env.DEFGUARD_GRPC_KEY || "";
  if (!cert && !key) return null;
  if (!cert || !key) throw new Error("DEFGUARD_GRPC_CERT and DEFGUARD_GRPC_KEY must be set together");
  return { cert, key };
}

export function publicUrl(): string {
  return (process.env.DEFGUARD_URL || `http://localhost:${httpPort()}`).replace(/\/+$/, "");
}

/** Lifetime of enrolment and CLI configuration tokens, in seconds (default one day). */
export function enrollmentTokenTimeout(): number {
  const n = Number(process.env.DEFGUARD_ENROLLMENT_TOKEN_TIMEOUT);
  return Number.isInteger(n) && n > 0 ? n : 86400;
}

/**
 * How long an enrolment session lasts once a token opened it, in seconds (default ten
 * minutes, as defguard's `enrollment_session_timeout`).
 */
export function enrollmentSessionTimeout(): number {
  const n = Number(process.env.DEFGUARD_ENROLLMENT_SESSION_TIMEOUT);
  return Number.isInteger(n) && n > 0 ? n : 600;
}

export function cookieSecure(): boolean {
  const v = (process.env.DEFGUARD_COOKIE_INSECURE || "").toLowerCase();
  return !(v === "1" || v === "true" || v === "yes");
}

export const SECRET_NAMES = {
  secretKey: "DEFGUARD_SECRET_KEY",
  gatewaySecret: "DEFGUARD_GATEWAY_SECRET",
  workerSecret: "DEFGUARD_YUBIBRIDGE_SECRET",
  encryptionKey: "DEFGUARD_ENCRYPTION_KEY",
} as const;
export type SecretName = keyof typeof SECRET_NAMES;

/** A secret from the environment; throws if server start-up did not provide it. */
export function secret(name: SecretName): string {
  const v = process.env[SECRET_NAMES[name]];
  if (!v) throw new Error(`${SECRET_NAMES[name]} is not set (server start-up resolves it)`);
  return v;
}

function positiveInt(name: string, fallback: number): number {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/**
 * Seconds between runs of the ACL expiry job (default 30): applied rules past their expiry
 * become "expired" and leave the gateways' firewalls within one interval. Tests shorten it.
 */
export function aclExpiryInterval(): number {
  return positiveInt("DEFGUARD_ACL_EXPIRY_INTERVAL", 30);
}

/** Live sessions one user may hold; signing in once more ends the oldest (default 10). */
export function maxSessionsPerUser(): number {
  return positiveInt("DEFGUARD_MAX_SESSIONS_PER_USER", 10);
}

/** Whether X-Forwarded-For is used for the client address (DEFGUARD_TRUST_PROXY=1). */
export function trustProxy(): boolean {
  return process.env.DEFGUARD_TRUST_PROXY === "1";
}

/**
 * Reverse proxies in front of the console whose X-Forwarded-For entries are trusted (default
 * 1). The client address is the entry that many places from the right: each trusted proxy
 * appends the address it received the request from, so entries further left are whatever
 * the client sent and cannot be trusted.
 */
export function trustedProxyHops(): number {
  return positiveInt("DEFGUARD_TRUSTED_PROXY_HOPS", 1);
}

/**
 * Provisioning clean-up (lib/provisioning, job "provisioning-retention"): finished YubiKey
 * provisioning jobs are removed this many days after they finished, and stations not heard from
 * for this many days are forgotten (defaults 30 and 30; `0` keeps them forever).
 */
export function provisioningRetentionDays(): { jobs: number; workers: number } {
  const days = (name: string) => {
    const raw = process.env[name];
    if (raw === undefined || raw.trim() === "") return 30;
    const n = Number(raw);
    return Number.isInteger(n) && n >= 0 ? n : 30;
  };
  return { jobs: days("DEFGUARD_PROVISIONING_JOB_RETENTION_DAYS"), workers: days("DEFGUARD_PROVISIONING_WORKER_RETENTION_DAYS") };
}
