/**
 * A console HTTP front for OpenID tests: server.ts's request path without Next.js (security
 * headers with a CSP nonce, then lib/oidc/http.ts). Run directly (tests/oidc-child.ts) it is a
 * second console process on the same database.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { handleOidc } from "../lib/oidc/http";
import { newNonce, securityHeaders } from "../lib/http/security-headers";

export async function startOidcServer(port = 0): Promise<{ url: string; server: Server; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    const security = securityHeaders(newNonce(), { publicUrl: process.env.DEFGUARD_URL ?? "http://127.0.0.1", dev: false });
    for (const [k, v] of Object.entries(security)) res.setHeader(k, v);
    handleOidc(req, res)
      .then((done) => {
        if (!done) res.writeHead(404, { "content-type": "application/json" }).end('{"msg":"not an OpenID path"}');
      })
      .catch((err) => {
        console.error("[oidc test server]", err);
        if (!res.headersSent) res.writeHead(500).end();
      });
  });
  await new Promise<void>((r) => server.listen(port, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, server, close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }) };
}
