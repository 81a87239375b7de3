import type { Server, ServerResponse } from "node:http";

/** Seconds shutdown waits for requests in flight (DEFGUARD_SHUTDOWN_TIMEOUT, default 10). */
export function shutdownTimeoutMs(): number {
  const n = Number(process.env.DEFGUARD_SHUTDOWN_TIMEOUT);
  return (Number.isFinite(n) && n >= 0 ? n : 10) * 1000;
}

const inflight = new WeakMap<Server, Set<ServerResponse>>();

/** Count the requests a server is answering (call once, right after creating it). */
export function trackInflight(server: Server): void {
  const set = new Set<ServerResponse>();
  inflight.set(server, set);
  server.on("request", (_req, res: ServerResponse) => {
    set.add(res);
    res.once("close", () => set.delete(res));
  });
}

/**
 * Stop accepting connections and wait for the requests in flight to be answered: their
 * responses carry `Connection: close`, idle keep-alive connections are closed as soon as they
 * are idle, so no client sees its connection reset. After `timeoutMs` whatever is left is cut;
 * returns how many requests were still running then (0 = clean).
 */
export async function drainHttp(server: Server, timeoutMs: number): Promise<number> {
  const set = inflight.get(server) ?? new Set<ServerResponse>();
  server.close();
  for (const res of set) if (!res.headersSent) res.setHeader("connection", "close");
  server.closeIdleConnections?.();
  const deadline = Date.now() + timeoutMs;
  while (set.size && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 20));
    server.closeIdleConnections?.();
  }
  const left = set.size;
  server.closeAllConnections?.();
  return left;
}
