/**
 * A real local HTTP(S) receiver for delivery tests (webhooks, log streams): records every
 * request and answers what the test says (a status, or nothing at all to simulate a hang).
 */
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";

export interface Received {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Answer = number | "hang" | "garbage" | { status: number; delayMs: number };

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Called per request: the status to answer (default 200), "hang" (never answer) or "garbage" (not HTTP). */
  answer: (r: Received) => Answer;
  close(): Promise<void>;
  /** Start listening again on the same port after close(). */
  reopen(): Promise<void>;
  /** Wait until `n` requests arrived (or fail after `ms`). */
  waitFor(n: number, ms?: number): Promise<void>;
}

export async function startReceiver(opts: { tls?: { cert: string; key: string }; port?: number } = {}): Promise<Receiver> {
  const received: Received[] = [];
  const sockets = new Set<import("node:net").Socket>();
  let server: http.Server;
  const r: Receiver = {
    url: "",
    port: opts.port ?? 0,
    received,
    answer: () => 200,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((res) => server.close(() => res()));
    },
    async reopen() {
      await listen(r.port);
    },
    async waitFor(n, ms = 15_000) {
      const until = Date.now() + ms;
      while (received.length < n) {
        if (Date.now() > until) throw new Error(`receiver got ${received.length} of ${n} requests within ${ms} ms`);
        await new Promise((res) => setTimeout(res, 20));
      }
    },
  };
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const rec: Received = { method: req.method ?? "", path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), at: Date.now() };
      received.push(rec);
      const a = r.answer(rec);
      if (a === "hang") return;
      if (typeof a === "object") {
        setTimeout(() => {
          res.writeHead(a.status);
          res.end("ok");
        }, a.delayMs);
        return;
      }
      if (a === "garbage") {
        res.socket?.end("this is not HTTP at all\r\n\r\n");
        return;
      }
      res.writeHead(a, { "content-type": "text/plain" });
      res.end(a >= 400 ? `status ${a}` : "ok");
    });
  };
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server = opts.tls ? https.createServer({ cert: opts.tls.cert, key: opts.tls.key }, handler) : http.createServer(handler);
      server.on("connection", (s) => {
        sockets.add(s);
        s.on("close", () => sockets.delete(s));
      });
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        r.port = (server.address() as AddressInfo).port;
        r.url = `${opts.tls ? "https" : "http"}://${opts.tls ? "localhost" : "127.0.0.1"}:${r.port}/hook`;
        resolve();
      });
    });
  await listen(r.port);
  return r;
}
