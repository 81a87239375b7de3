import "server-only";
import { randomUUID } from "node:crypto";
import { sql } from "drizzle-orm";
import { getDb, getLazyCommitDb } from "../db";
import { decryptSecret } from "../crypto";
import { describeError } from "../log-errors";
import { isDatabaseUnavailable } from "../errors";
import { postOnce, type PostResult } from "./http";
import { signatureHeader } from "./signature";

/**
 * The delivery worker: every console process runs one. Due rows are claimed with
 * `FOR UPDATE SKIP LOCKED` and a lease (`claimed_until`), so processes share the work without
 * sending a row twice in the normal case; a process that dies mid-send leaves leases that expire,
 * and its rows are sent again by anyone (at least once). Per target only the oldest pending row
 * (the head) can be claimed, with the rows after it, so each target receives its messages in
 * order, one batch at a time.
 *
 * Claims and delivery states commit without waiting for the WAL flush (getLazyCommitDb): they
 * are visible to the other processes at once, and only a crash of the database server itself
 * can lose one, which sends a delivery again (at least once). The rows themselves are written
 * by the user change's own transaction, with its normal, durable commit.
 */

/**
 * How long a claim lasts (DEFGUARD_OUTBOX_LEASE_S, default 60 s; tests shorten it); a holder
 * stops starting new sends after two thirds of it, so a live holder never outlasts its claim.
 */
const leaseSeconds = () => Number(process.env.DEFGUARD_OUTBOX_LEASE_S || 60);
/** Rows per claim: webhooks are sent one request per row, streams one NDJSON request per batch. */
export const WEBHOOK_BATCH = 50;
export const STREAM_BATCH = 500;
/** A stream's oldest entry waits this long before its batch is sent (then at most ~0.75 s old). */
const STREAM_GATHER_S = 0.25;
/** Targets a process works on at once. */
const MAX_INFLIGHT_TARGETS = 8;
/** Retries stop growing at one hour apart; rows are given up 24 h after they were queued. */
const MAX_DELAY_S = 3600;

/** Delay before attempt `attempts + 1` after `attempts` failed ones: exponential with jitter (first retry within 5-10 s). */
export function retryDelaySeconds(attempts: number, random = Math.random): number {
  const baseS = Number(process.env.DEFGUARD_OUTBOX_RETRY_BASE_MS || 10_000) / 1000;
  const d = Math.min(MAX_DELAY_S, baseS * 2 ** Math.max(0, attempts - 1));
  return d / 2 + (random() * d) / 2;
}

type Claimed = {
  id: number;
  kind: "webhook" | "stream";
  target_id: number;
  event: string;
  payload: string;
  delivery_id: string;
  attempts: number;
};

/** Claim due heads (and the rows queued after them) for up to `targets` targets; log-stream rows only when `streams`. */
async function claim(token: string, targets: number, streams: boolean): Promise<Map<string, Claimed[]>> {
  const r = await getLazyCommitDb().execute<Claimed>(sql`
    with targets as (
      select 'webhook'::text kind, id target_id from webhooks where enabled
      -- Log streams paused (enterprise features unavailable): their rows stay queued.
      union all select 'stream', id from activity_log_streams where ${streams}
    ), heads as (
      -- One index probe per target (outbox_pending_idx), whatever the backlog: a failing
      -- receiver's thousands of pending rows are never scanned by every pass.
      select h.id from targets t cross join lateral (
        select p.id from outbox p where p.kind = t.kind and p.target_id = t.target_id and p.state = 'pending' order by p.id limit 1
      ) h
    ), due as (
      select o.id, o.kind, o.target_id from outbox o join heads h on h.id = o.id
       where o.next_attempt_at <= now() and (o.claimed_until is null or o.claimed_until < now())
         -- A stream's batch waits a quarter of a second for company (one request, not one per entry).
         and (o.kind <> 'stream' or o.attempts > 0 or o.created_at <= now() - make_interval(secs => ${STREAM_GATHER_S}))
       order by o.id
       limit ${targets}
       for update of o skip locked
    ), batch as (
      select b.id from due d cross join lateral (
        select x.id from outbox x
         where x.kind = d.kind and x.target_id = d.target_id and x.state = 'pending' and x.id >= d.id
         order by x.id
         limit (case when d.kind = 'stream' then ${STREAM_BATCH}::int else ${WEBHOOK_BATCH}::int end)
      ) b
    )
    update outbox u set claimed_until = now() + make_interval(secs => ${leaseSeconds()}), claim_token = ${token}
      from batch where u.id = batch.id
    returning u.id, u.kind, u.target_id, u.event, u.payload, u.delivery_id, u.attempts`);
  const byTarget = new Map<string, Claimed[]>();
  for (const row of r.rows) {
    const key = `${row.kind}:${row.target_id}`;
    const list = byTarget.get(key) ?? [];
    list.push({ ...row, id: Number(row.id) });
    byTarget.set(key, list);
  }
  for (const list of byTarget.values()) list.sort((a, b) => a.id - b.id);
  return byTarget;
}

async function markDelivered(ids: number[], token: string, status: number) {
  if (!ids.length) return;
  await getLazyCommitDb().execute(sql`
    update outbox set state = 'delivered', delivered_at = now(), attempts = attempts + 1, last_attempt_at = now(),
           last_status = ${status}, last_error = null, claimed_until = null, claim_token = null
     where id = any(${sql.param(ids)}::bigint[]) and claim_token = ${token}`);
}

async function markFailed(ids: number[], token: string, r: Extract<PostResult, { ok: false }>, attempts: number) {
  if (!ids.length) return;
  const delay = retryDelaySeconds(attempts + 1);
  await getLazyCommitDb().execute(sql`
    update outbox set attempts = attempts + 1, last_attempt_at = now(), last_status = ${r.status}, last_error = ${r.error.slice(0, 500)},
           claimed_until = null, claim_token = null,
           next_attempt_at = now() + make_interval(secs => ${delay}),
           state = case when ${!r.retry} or now() + make_interval(secs => ${delay}) > give_up_at then 'failed' else 'pending' end
     where id = any(${sql.param(ids)}::bigint[]) and claim_token = ${token}`);
}

async function release(ids: number[], token: string) {
  if (!ids.length) return;
  await getLazyCommitDb().execute(sql`update outbox set claimed_until = null, claim_token = null where id = any(${sql.param(ids)}::bigint[]) and claim_token = ${token}`);
}

async function dropRows(kind: string, targetId: number) {
  await getDb().execute(sql`delete from outbox where kind = ${kind} and target_id = ${targetId}`);
}

async function sendWebhookRows(targetId: number, rows: Claimed[], token: string): Promise<number> {
  const w = (await getDb().execute<{ url: string; token: string; enabled: boolean }>(sql`select url, token, enabled from webhooks where id = ${targetId}`)).rows[0];
  if (!w) {
    await dropRows("webhook", targetId);
    return rows.length;
  }
  if (!w.enabled) {
    await release(rows.map((r) => r.id), token);
    return 0;
  }
  const secret = decryptSecret(w.token);
  const started = Date.now();
  let sent = 0;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (Date.now() - started > (leaseSeconds() * 1000 * 2) / 3) {
      await release(rows.slice(i).map((r) => r.id), token);
      break;
    }
    const res = await postOnce(
      w.url,
      {
        "content-type": "application/json",
        authorization: `Bearer ${secret}`,
        "x-defguard-event": row.event,
        "x-defguard-signature": signatureHeader(secret, row.payload),
        "x-defguard-delivery": row.delivery_id,
      },
      row.payload,
    );
    sent++;
    if (res.ok) {
      await markDelivered([row.id], token, res.status);
    } else {
      await markFailed([row.id], token, res, row.attempts);
      // In order: nothing after a row that will be retried goes out before it.
      if (res.retry) {
        await release(rows.slice(i + 1).map((r) => r.id), token);
        break;
      }
    }
  }
  return sent;
}

async function sendStreamRows(targetId: number, rows: Claimed[], token: string): Promise<number> {
  const s = (
    await getDb().execute<{ url: string; username: string | null; password: string | null; cert: string | null }>(
      sql`select url, username, password, cert from activity_log_streams where id = ${targetId}`,
    )
  ).rows[0];
  if (!s) {
    await dropRows("stream", targetId);
    return rows.length;
  }
  const headers: Record<string, string> = { "content-type": "application/x-ndjson" };
  if (s.username && s.password) {
    headers.authorization = `Basic ${Buffer.from(`${s.username}:${decryptSecret(s.password)}`).toString("base64")}`;
  }
  const body = rows.map((r) => r.payload).join("\n") + "\n";
  const res = await postOnce(s.url, headers, body, { ca: s.url.startsWith("https:") ? s.cert : null });
  const ids = rows.map((r) => r.id);
  if (res.ok) await markDelivered(ids, token, res.status);
  else await markFailed(ids, token, res, Math.max(...rows.map((r) => r.attempts)));
  return rows.length;
}

/**
 * Whether log-stream rows may be sent: log streaming is an enterprise feature, so the composition
 * layer (lib/jobs/runner.ts) installs lib/webhooks/streams.ts's check here (this foundation
 * module knows no licence). While it says no, stream rows are neither claimed nor attempted:
 * they stay pending (the backlog grows, nothing is lost or given up) and go out in order once it
 * says yes again. Unset (a process that never installed it): streams are sent.
 */
export type StreamGate = () => Promise<boolean>;

// On globalThis: server.ts and the route bundles Next.js compiles are separate module graphs in
// one process and must share one worker.
type WorkerState = {
  timer?: NodeJS.Timeout;
  running: boolean;
  again: boolean;
  stopped: boolean;
  inflight: Set<string>;
  streamGate?: StreamGate;
  /** The gate's last answer and when (the periodic passes ask at most every GATE_TTL_MS). */
  gateCache?: { open: boolean; at: number };
};
const g = globalThis as unknown as { __defguardOutbox?: WorkerState };
const state = (g.__defguardOutbox ??= { running: false, again: false, stopped: true, inflight: new Set() });
const inflight = state.inflight;
const GATE_TTL_MS = 2000;

export function setStreamGate(gate: StreamGate | null): void {
  state.streamGate = gate ?? undefined;
  state.gateCache = undefined;
}

/**
 * Ask the stream gate (answers younger than `maxAgeMs` are reused). When it opens again after
 * being closed, the paused rows get a fresh give-up deadline: a pause must not make them expire.
 */
async function streamsOpen(maxAgeMs: number): Promise<boolean> {
  if (!state.streamGate) return true;
  const cached = state.gateCache;
  if (cached && Date.now() - cached.at < maxAgeMs) return cached.open;
  const open = await state.streamGate();
  state.gateCache = { open, at: Date.now() };
  if (open && cached && !cached.open) await extendPausedStreams();
  return open;
}

/** Paused stream rows get at least the usual 24 hours from now to be delivered. */
export async function extendPausedStreams(): Promise<void> {
  await getDb().execute(sql`
    update outbox set give_up_at = now() + interval '24 hours'
     where kind = 'stream' and state = 'pending' and give_up_at < now() + interval '24 hours'`);
}

/**
 * One pass: claim what is due for the targets this process is not already sending to, and send
 * it. Resolves when the sends of this pass are done; returns the rows handled.
 */
export async function deliverDue(opts: { targets?: number; wait?: boolean; gateMaxAgeMs?: number } = {}): Promise<number> {
  const free = (opts.targets ?? MAX_INFLIGHT_TARGETS) - inflight.size;
  if (free <= 0) return 0;
  const token = randomUUID();
  const claimed = await claim(token, free, await streamsOpen(opts.gateMaxAgeMs ?? 0));
  const tasks: Promise<number>[] = [];
  for (const [key, rows] of claimed) {
    inflight.add(key);
    const { kind, target_id } = rows[0];
    const task = (kind === "webhook" ? sendWebhookRows(target_id, rows, token) : sendStreamRows(target_id, rows, token))
      .catch(async (err) => {
        console.error(`[outbox] delivery to ${kind} ${target_id} failed:`, describeError(err));
        await release(rows.map((r) => r.id), token).catch(() => undefined);
        return 0;
      })
      .finally(() => {
        inflight.delete(key);
        if (opts.wait === false) kickOutbox();
      });
    tasks.push(task);
  }
  // The worker does not wait: a slow receiver must not hold up the other targets.
  if (opts.wait === false) return claimed.size;
  const counts = await Promise.all(tasks);
  return counts.reduce((a, b) => a + b, 0);
}


/** Whether the last pass found the database unreachable (so the outage is logged once). */
let dbDown = false;

async function cycle() {
  if (state.stopped) return;
  if (state.running) {
    state.again = true;
    return;
  }
  state.running = true;
  try {
    do {
      state.again = false;
      const n = await deliverDue({ wait: false, gateMaxAgeMs: GATE_TTL_MS });
      if (n > 0) state.again = true;
    } while (state.again && !state.stopped);
    if (dbDown) console.info("[outbox] database reachable again; deliveries go on");
    dbDown = false;
  } catch (err) {
    // A database outage is said once (passes run every half second), not once per pass.
    if (isDatabaseUnavailable(err)) {
      if (!dbDown) console.warn("[outbox] database unavailable; queued deliveries wait for it");
      dbDown = true;
    } else console.error("[outbox] delivery pass failed:", describeError(err));
  } finally {
    state.running = false;
  }
}

/** Start this process's worker: a pass every `everyMs` and whenever kickOutbox() is called. */
export function startOutboxWorker(everyMs = 500): () => void {
  state.stopped = false;
  clearInterval(state.timer);
  state.timer = setInterval(() => void cycle(), everyMs);
  state.timer.unref?.();
  void cycle();
  return () => {
    state.stopped = true;
    clearInterval(state.timer);
  };
}

/** Deliveries were queued and committed: send them now rather than at the next tick. */
export function kickOutbox(): void {
  if (!state.stopped) setImmediate(() => void cycle());
}

/**
 * Retention: a webhook keeps its last 100 settled deliveries (its delivery log); settled
 * log-stream rows are kept one hour (for the stream's status), failed ones seven days.
 */
export async function pruneOutbox(): Promise<number> {
  const r = await getDb().execute(sql`
    delete from outbox o using (
      select id from (
        select id, row_number() over (partition by target_id order by id desc) n
          from outbox where kind = 'webhook' and state <> 'pending'
      ) ranked where n > 100
    ) old where o.id = old.id`);
  const s = await getDb().execute(sql`
    delete from outbox where kind = 'stream' and (
      (state = 'delivered' and delivered_at < now() - interval '1 hour') or
      (state = 'failed' and last_attempt_at < now() - interval '7 days'))`);
  return (r.rowCount ?? 0) + (s.rowCount ?? 0);
}
