import "server-only";
/**
 * Response headers every answer of the console carries (pages and API), and the check for
 * malformed percent-escapes in a request path. Both run in server.ts before Next.js sees the
 * request.
 */
import { createHash, randomBytes } from "node:crypto";
import { THEME_SCRIPT } from "../theme-script";

/** The one inline script we write ourselves (theme before first paint), allowed by its hash. */
const THEME_SCRIPT_HASH = `'sha256-${createHash("sha256").update(THEME_SCRIPT).digest("base64")}'`;

export function newNonce(): string {
  return randomBytes(16).toString("base64");
}

/**
 * The Content-Security-Policy for one request. Next.js finds the nonce in this header on the
 * incoming request and puts it on the inline scripts it streams (hydration data) and on its
 * own script tags; nothing else inline may run.
 * - style-src 'unsafe-inline': React writes `style` attributes (progress bars, chart sizes,
 *   positioned popovers) and next/font injects a <style> element; style attributes cannot carry a
 *   nonce, and styles cannot run code.
 * - 'unsafe-eval' only in development (React's dev tooling evaluates code); never in production.
 */
export function contentSecurityPolicy(nonce: string, dev = false): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' ${THEME_SCRIPT_HASH}${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    `connect-src 'self'${dev ? " ws: wss:" : ""}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

/** All security headers for one answer; HSTS only when the console's public URL is https. */
export function securityHeaders(nonce: string, opts: { publicUrl?: string; dev?: boolean } = {}): Record<string, string> {
  const h: Record<string, string> = {
    "content-security-policy": contentSecurityPolicy(nonce, opts.dev),
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "x-content-type-options": "nosniff",
  };
  if ((opts.publicUrl ?? "").toLowerCase().startsWith("https://")) {
    h["strict-transport-security"] = "max-age=31536000; includeSubDomains";
  }
  return h;
}

/** True when some segment of the path (the part before `?`) has a percent-escape that does not decode. */
export function hasMalformedEscape(rawUrl: string): boolean {
  const path = rawUrl.split(/[?#]/, 1)[0];
  if (!path.includes("%")) return false;
  for (const segment of path.split("/")) {
    try {
      decodeURIComponent(segment);
    } catch {
      return true;
    }
  }
  return false;
}

export const MALFORMED_PATH_MSG = "the address contains a malformed percent-escape (a % not followed by two hex digits, or invalid UTF-8)";

/** The 400 answer for such a path: JSON {msg} under /api, a small HTML page elsewhere. */
export function malformedPathAnswer(rawUrl: string): { status: number; contentType: string; body: string } {
  if (rawUrl.startsWith("/api/")) {
    return { status: 400, contentType: "application/json", body: JSON.stringify({ msg: MALFORMED_PATH_MSG }) };
  }
  const body =
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bad request</title></head>' +
    `<body><h1>Bad request</h1><p>The ${MALFORMED_PATH_MSG.slice(4)}.</p><p><a href="/">Go to the start page</a></p></body></html>`;
  return { status: 400, contentType: "text/html; charset=utf-8", body };
}
