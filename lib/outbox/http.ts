import "server-only";
import http from "node:http";
import https from "node:https";
import { createHash } from "node:crypto";

/** Every attempt ends within this time, answer or not. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** The time limit in force: DEFGUARD_OUTBOX_TIMEOUT_MS (tests shorten it), else 10 s. */
const timeoutMs = () => Number(process.env.DEFGUARD_OUTBOX_TIMEOUT_MS || DELIVERY_TIMEOUT_MS);

export type PostResult = { ok: true; status: number } | { ok: false; status: number | null; error: string; retry: boolean };

const plainAgent = new http.Agent({ keepAlive: true, maxSockets: 4 });
const defaultTlsAgent = new https.Agent({ keepAlive: true, maxSockets: 4 });
const caAgents = new Map<string, https.Agent>();

function agentFor(url: URL, ca: string | null | undefined): http.Agent {
  if (url.protocol === "http:") return plainAgent;
  if (!ca) return defaultTlsAgent;
  const key = createHash("sha256").update(ca).digest("hex");
  let a = caAgents.get(key);
  if (!a) {
    a = new https.Agent({ keepAlive: true, maxSockets: 4, ca });
    caAgents.set(key, a);
  }
  return a;
}

/**
 * POST `body` to `url` once. 2xx is success; network errors, timeouts, 5xx and 429 are worth
 * another attempt, any other answer is not. The answer's body is read only for a short error
 * excerpt, and the whole exchange is cut at `timeoutMs`, so a receiver that hangs or answers
 * garbage costs at most that.
 */
export function postOnce(
  rawUrl: string,
  headers: Record<string, string>,
  body: string,
  opts: { ca?: string | null; timeoutMs?: number } = {},
): Promise<PostResult> {
  return new Promise((resolve) => {
    let done = false;
    let ended = false;
    const finish = (r: PostResult) => {
      if (done) return;
      done = true;
      resolve(r);
    };
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      resolve({ ok: false, status: null, error: "invalid URL", retry: false });
      return;
    }
    const lib = url.protocol === "https:" ? https : http;
    const payload = Buffer.from(body, "utf8");
    let req: http.ClientRequest;
    try {
      req = lib.request(url, {
        method: "POST",
        agent: agentFor(url, opts.ca),
        headers: { ...headers, "content-length": String(payload.length), "user-agent": "defguard-console" },
      });
    } catch (err) {
      // e.g. a CA certificate that does not parse: the admin may fix it, so it is retried.
      resolve({ ok: false, status: null, error: err instanceof Error ? err.message : String(err), retry: true });
      return;
    }
    const timer = setTimeout(() => {
      if (!ended) req.destroy(new Error(`no answer within ${(opts.timeoutMs ?? timeoutMs()) / 1000} s`));
    }, opts.timeoutMs ?? timeoutMs());
    req.on("error", (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      finish({ ok: false, status: null, error: err.code ? `${err.code}: ${err.message}` : err.message, retry: true });
    });
    req.on("response", (res) => {
      const status = res.statusCode ?? 0;
      res.on("end", () => {
        ended = true;
        clearTimeout(timer);
      });
      if (status >= 200 && status < 300) {
        // Accepted: the rest of the answer is drained (and cut at the time limit) but not awaited.
        finish({ ok: true, status });
        res.resume();
        res.on("error", () => undefined);
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (c: Buffer) => {
        if (size < 512) chunks.push(c);
        size += c.length;
      });
      const fail = () => {
        const excerpt = Buffer.concat(chunks).toString("utf8").slice(0, 200).replace(/[\r\n\t]+/g, " ").trim();
        finish({ ok: false, status, error: `HTTP ${status}${excerpt ? `: ${excerpt}` : ""}`, retry: status >= 500 || status === 429 });
      };
      res.on("end", fail);
      res.on("error", fail);
    });
    req.end(payload);
  });
}
