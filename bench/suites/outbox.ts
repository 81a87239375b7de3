/**
 * The delivery outbox (webhooks and activity-log streams) against a running server and two real
 * local receivers started here; the delivery workers of this process and of the server send:
 * - the latency of a user change (updateUser in this process, on the server's database) with
 *   no webhook or stream, then with one webhook and one stream whose receiver answers 503 (rows
 *   are written, hardly anything is sent: the difference is what the outbox write adds);
 * - throughput: 10,000 user changes (4 at a time) queued while the receivers are down, then the
 *   receivers come up and the backlog drains: events/s to each receiver;
 * - with deliveries live: the user change's latency and commit → webhook receipt per event.
 * Nothing here asserts anything about time.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { ensureBuild, E2E_DIST_DIR } from "../../e2e/setup/build";
import { makeTempDir, startServer } from "../../e2e/setup/server";
import { max, ms, percentile } from "../lib/stats";
import type { Row, Suite, SuiteContext } from "../lib/types";

const CHANGES = Number(process.env.BENCH_OUTBOX_CHANGES || 10_000);
const LATENCY_CHANGES = Number(process.env.BENCH_OUTBOX_LATENCY_CHANGES || 2_000);
const USERS = 1_000;
const CONCURRENCY = 4;

interface Sink {
  url: string;
  /** performance.now() of each receipt, with the request body. */
  got: { at: number; body: string }[];
  events: number;
  /** NDJSON lines received. */
  lines: number;
  close(): Promise<void>;
}

async function sink(countEvents: (body: string) => number, status = 204): Promise<Sink> {
  const s: Sink = { url: "", got: [], events: 0, lines: 0, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      if (status >= 300) return void res.writeHead(status).end();
      s.got.push({ at: performance.now(), body });
      s.events += countEvents(body);
      s.lines += body.split("\n").filter(Boolean).length;
      res.writeHead(status).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  s.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  s.close = () => new Promise((r) => {
    server.close(() => r());
    server.closeAllConnections();
  });
  return s;
}

async function waitUntil(cond: () => boolean, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

async function run(ctx: SuiteContext): Promise<Row[]> {
  await ensureBuild({ root: ctx.root, distDir: E2E_DIST_DIR, log: ctx.log });
  const dir = makeTempDir("defguard-bench-outbox-");
  const server = await startServer({ root: ctx.root, entry: "server", distDir: E2E_DIST_DIR, dataDir: join(dir, "data"), logFile: join(dir, "server.log") });
  const hook = await sink(() => 1);
  const stream = await sink((b) => b.split("\n").filter((l) => l.includes('"user_modified"')).length);
  try {
    if (!server.dbPort) throw new Error("no embedded PostgreSQL port in the server output");
    const { resolveSecrets } = await import("../../lib/secrets-file");
    const secrets = resolveSecrets(server.dataDir);
    process.env.DATABASE_URL = `postgres://defguard:${encodeURIComponent(secrets.embeddedDbPassword!)}@127.0.0.1:${server.dbPort}/defguard`;
    const { getPool, closeDb } = await import("../../lib/db");
    const { encryptSecret } = await import("../../lib/crypto");
    const { updateUser } = await import("../../lib/users/service");
    const { SYSTEM_ACTOR } = await import("../../lib/activity/service");
    const { startOutboxWorker } = await import("../../lib/outbox/worker");
    let stopWorker = () => {};
    try {
      await getPool().query(
        `insert into users (username, first_name, last_name, email) select 'ob' || i, 'Bench', i::text, 'ob' || i || '@bench.invalid' from generate_series(1, $1) i`,
        [USERS],
      );
      const change = async (i: number) => {
        const n = (i % USERS) + 1;
        const t0 = performance.now();
        await updateUser(SYSTEM_ACTOR, true, `ob${n}`, { username: `ob${n}`, first_name: `C${i}`, last_name: String(n), email: `ob${n}@bench.invalid`, phone: null });
        return { t0, t1: performance.now() };
      };
      const sequential = async (from: number, count: number) => {
        const lat: number[] = [];
        for (let i = from; i < from + count; i++) {
          const { t0, t1 } = await change(i);
          lat.push(t1 - t0);
        }
        return lat;
      };

      ctx.log(`[outbox] ${LATENCY_CHANGES} sequential user changes without webhooks or streams...`);
      await sequential(0, 200); // warm-up
      const bare = await sequential(1_000_000, LATENCY_CHANGES);

      // The webhook and the stream first point at a receiver answering 503: every change queues
      // its rows, and the workers only retry the oldest now and then. So the next run measures
      // the outbox write alone, without deliveries competing for the two cores.
      const blocked = await sink(() => 0, 503);
      await getPool().query(
        `insert into webhooks (url, description, token, enabled, on_user_created, on_user_modified, on_user_deleted) values ($1, 'bench', $2, true, true, true, true)`,
        [blocked.url, encryptSecret("bench-token")],
      );
      await getPool().query(`insert into activity_log_streams (name, stream_type, url) values ('bench', 'vector_http', $1)`, [blocked.url]);
      // This process delivers too, as the console process that served a change would (kicked
      // right after its commits); the server's worker is the second process.
      stopWorker = startOutboxWorker();
      ctx.log(`[outbox] ${LATENCY_CHANGES} sequential user changes with one webhook and one stream...`);
      const withOutbox = await sequential(2_000_000, LATENCY_CHANGES);

      ctx.log(`[outbox] ${CHANGES} more user changes (${CONCURRENCY} at a time) into the backlog...`);
      let next = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < CHANGES) await change(3_000_000 + next++);
        }),
      );
      const commitMs = performance.now() - t0;
      const [{ n: backlog }] = (await getPool().query<{ n: number }>("select count(*)::int n from outbox where kind = 'webhook' and state = 'pending'")).rows;
      const [{ n: streamBacklog }] = (await getPool().query<{ n: number }>("select count(*)::int n from outbox where kind = 'stream' and state = 'pending'")).rows;

      ctx.log(`[outbox] receivers up: draining ${backlog} webhook and ${streamBacklog} stream rows...`);
      const drainStart = performance.now();
      await getPool().query("update webhooks set url = $1", [hook.url]);
      await getPool().query("update activity_log_streams set url = $1", [stream.url]);
      await getPool().query("update outbox set next_attempt_at = now() where state = 'pending'");
      const okHook = await waitUntil(() => hook.got.length >= backlog, 600_000);
      const hookLast = hook.got.at(-1)?.at ?? performance.now();
      const okStream = await waitUntil(() => stream.lines >= streamBacklog, 600_000);
      const streamLast = stream.got.at(-1)?.at ?? performance.now();
      const streamRequests = stream.got.length;
      // Counted now: the live phase below adds to both receivers.
      const hookDrained = hook.got.length;
      const streamDrained = stream.lines;
      await blocked.close();

      ctx.log(`[outbox] ${LATENCY_CHANGES} sequential changes with deliveries live...`);
      hook.got.length = 0;
      const committedAt = new Map<string, number>();
      const live: number[] = [];
      for (let i = 4_000_000; i < 4_000_000 + LATENCY_CHANGES; i++) {
        const { t0: a, t1 } = await change(i);
        live.push(t1 - a);
        committedAt.set(`C${i}`, t1);
      }
      await waitUntil(() => hook.got.length >= LATENCY_CHANGES, 120_000);
      const perEvent: number[] = [];
      for (const g of hook.got) {
        const name = /"first_name":"(C\d+)"/.exec(g.body)?.[1];
        const c = name ? committedAt.get(name) : undefined;
        if (c !== undefined) perEvent.push(g.at - c);
      }
      await waitUntil(() => false, 2_000);
      const [{ n: left }] = (await getPool().query<{ n: number }>("select count(*)::int n from outbox where state <> 'delivered'")).rows;

      const row = (measurement: string, values: number[]) => ({ measurement, p50: `${ms(percentile(values, 50))} ms`, p99: `${ms(percentile(values, 99))} ms`, max: `${ms(max(values))} ms` });
      return [
        row(`user change (updateUser), no webhook or stream, ${LATENCY_CHANGES} sequential`, bare),
        row("the same with one webhook and one stream (their rows written in the change's transaction)", withOutbox),
        { measurement: "added by the outbox write (difference)", p50: `${ms(percentile(withOutbox, 50) - percentile(bare, 50))} ms`, p99: `${ms(percentile(withOutbox, 99) - percentile(bare, 99))} ms`, max: "" },
        { measurement: `${CHANGES} changes committed, ${CONCURRENCY} at a time (receivers down)`, p50: `${((CHANGES / commitMs) * 1000).toFixed(0)} changes/s`, p99: "", max: `${ms(commitMs)} ms` },
        {
          measurement: `webhook backlog of ${backlog} deliveries → receiver, one POST each${okHook ? "" : " (TIMED OUT)"}`,
          p50: `${((hookDrained / (hookLast - drainStart)) * 1000).toFixed(0)} events/s`,
          p99: "",
          max: `${ms(hookLast - drainStart)} ms`,
        },
        {
          measurement: `stream backlog of ${streamBacklog} entries → receiver, ${streamRequests} NDJSON requests${okStream ? "" : " (TIMED OUT)"}`,
          p50: `${((streamDrained / (streamLast - drainStart)) * 1000).toFixed(0)} events/s`,
          p99: "",
          max: `${ms(streamLast - drainStart)} ms`,
        },
        row(`user change with deliveries running (${LATENCY_CHANGES} sequential)`, live),
        row("webhook: one event, commit → received", perEvent),
        { measurement: "outbox rows not delivered at the end", p50: String(left), p99: "", max: "" },
      ];
    } finally {
      stopWorker();
      await closeDb();
    }
  } finally {
    await hook.close();
    await stream.close();
    await server.stop();
  }
}

const suite: Suite = {
  name: "outbox",
  description: `Webhook and log-stream delivery: user-change latency with and without the outbox write, a backlog of ${CHANGES} changes drained to two local receivers, live commit → receipt`,
  run,
};
export default suite;
