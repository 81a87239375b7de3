import "server-only";
import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * X-Defguard-Signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" keyed with the
 * webhook's token>`. The receiver recomputes it over the raw body (README, "Webhooks").
 */
export function signatureHeader(token: string, body: string, unixSeconds = Math.floor(Date.now() / 1000)): string {
  const mac = createHmac("sha256", token).update(`${unixSeconds}.${body}`).digest("hex");
  return `t=${unixSeconds},v1=${mac}`;
}

/** Check a signature header against the body (what a receiver does); `toleranceS` bounds replays. */
export function verifySignature(token: string, body: string, header: string, toleranceS = 300, nowS = Math.floor(Date.now() / 1000)): boolean {
  const parts = Object.fromEntries(header.split(",").map((p) => p.split("=", 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || Math.abs(nowS - t) > toleranceS || !parts.v1) return false;
  const want = Buffer.from(createHmac("sha256", token).update(`${t}.${body}`).digest("hex"));
  const got = Buffer.from(parts.v1);
  return want.length === got.length && timingSafeEqual(want, got);
}
