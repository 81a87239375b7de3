import "server-only";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import { apiRoutes, metrics, metricsAuthorized, RouteMatcher } from "../metrics";
import { requestIdFrom, withRequestId } from "../logging";

/**
 * What server.ts does around every HTTP request: a request id (from a proxy's X-Request-Id or
 * new; handed to the route wrapper and sent back as X-Request-Id), the request counter and
 * latency histogram labelled with the route pattern, and GET /metrics.
 */
export async function routeMatcher(root: string, distDir: string): Promise<RouteMatcher> {
  // Source folders in development, the compiled route files of the build in production.
  const fromSource = await apiRoutes(join(root, "app"));
  return new RouteMatcher(fromSource.length ? fromSource : await apiRoutes(join(root, distDir, "server/app")));
}

export function observeRequest(req: IncomingMessage, res: ServerResponse, matcher: RouteMatcher): string {
  const requestId = requestIdFrom(req.headers["x-request-id"]);
  req.headers["x-defguard-request-id"] = requestId;
  res.setHeader("x-request-id", requestId);
  const start = process.hrtime.bigint();
  const method = (req.method ?? "GET").toUpperCase();
  res.once("finish", () => {
    const labels = { method, route: matcher.label(req.url ?? "/"), status: String(res.statusCode) };
    const m = metrics();
    m.httpRequests.inc(labels);
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    m.httpDuration.observe(labels, seconds);
    // One access line per request with DEFGUARD_LOG_REQUESTS=1 (path without the query string).
    if (process.env.DEFGUARD_LOG_REQUESTS === "1") {
      const path = (req.url ?? "/").split("?")[0];
      withRequestId(requestId, () => console.log(`[http] ${method} ${path} ${res.statusCode} ${(seconds * 1000).toFixed(1)} ms`));
    }
  });
  return requestId;
}

/** Answer GET /metrics (Prometheus text format); false when the request is for something else. */
export function serveMetrics(req: IncomingMessage, res: ServerResponse): boolean {
  if ((req.url ?? "").split("?")[0] !== "/metrics") return false;
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { allow: "GET, HEAD", "content-type": "application/json" }).end(JSON.stringify({ msg: "method not allowed" }));
    return true;
  }
  if (!metricsAuthorized(req.headers.authorization)) {
    res
      .writeHead(401, { "content-type": "application/json", "www-authenticate": 'Bearer realm="metrics"', "cache-control": "no-store" })
      .end(JSON.stringify({ msg: "a valid bearer token is required (DEFGUARD_METRICS_TOKEN)" }));
    return true;
  }
  const registry = metrics().registry;
  registry.metrics().then(
    (text) => res.writeHead(200, { "content-type": registry.contentType, "cache-control": "no-store" }).end(req.method === "HEAD" ? undefined : text),
    (err) => {
      console.error("[metrics] collecting failed:", err instanceof Error ? err.message : err);
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" }).end(JSON.stringify({ msg: "collecting metrics failed" }));
    },
  );
  return true;
}
