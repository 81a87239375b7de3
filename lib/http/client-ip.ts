import "server-only";
import { trustProxy, trustedProxyHops } from "../config";

/**
 * The client address of a request. Without DEFGUARD_TRUST_PROXY it is the peer of the TCP
 * connection. With it, the right-most untrusted X-Forwarded-For entry: with N trusted proxies
 * the N-th entry from the right (the last proxy's own peer is the connection itself). Entries
 * further left are written by the client and can be forged. When the header has fewer
 * entries than that, the left-most one is the best available.
 */
export function clientAddress(forwardedFor: string | string[] | undefined, remoteAddress: string | undefined): string {
  const peer = normalise(remoteAddress ?? "");
  if (!trustProxy()) return peer;
  const raw = Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor;
  const entries = (raw ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  if (!entries.length) return peer;
  const i = Math.max(0, entries.length - trustedProxyHops());
  return normalise(entries[i]) || peer;
}

function normalise(a: string): string {
  return a.replace(/^::ffff:/, "");
}
