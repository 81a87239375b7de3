import "server-only";
import { sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { activityLogStreams } from "../db/schema";
import { decryptSecret, encryptSecret } from "../crypto";
import { notFound } from "../errors";
import { parseId } from "../validation";
import { transaction } from "../events";
import { recordActivity, type Actor } from "../activity/service";
import { entitlement, licenceRequiredMessage } from "../enterprise/service";
import type { LogStreamInput } from "./schema";

/**
 * Activity-log streams (defguard's enterprise `/activity_log_stream`): every activity-log entry
 * is queued for every stream by a trigger on activity_log (migration 0017) and sent by
 * lib/outbox as NDJSON batches. The password is encrypted at rest and, as defguard does,
 * returned to admins in `config`.
 */
export interface LogStream {
  id: number;
  name: string;
  stream_type: "vector_http" | "logstash_http";
  config: { url: string; username: string | null; password: string | null; cert: string | null };
  /**
   * This console's addition: delivery state. `paused` says why delivery is paused (enterprise
   * features unavailable: the licence message), null while it runs; the backlog is kept.
   */
  status: { last_success: string | null; backlog: number; last_error: string | null; last_error_at: string | null; paused: string | null };
}

/**
 * The outbox's stream gate (installed by lib/jobs/runner.ts with setStreamGate): log streaming
 * is an enterprise feature, so delivery pauses while enterprise features are unavailable
 * (docs/licence.md). Queued entries stay queued and go out in order once it resumes.
 */
export async function streamDeliveryAllowed(): Promise<boolean> {
  return (await entitlement()).enterprise;
}

/** Why stream delivery is paused, or null while it runs. */
async function pausedReason(): Promise<string | null> {
  const e = await entitlement();
  return e.enterprise ? null : `Delivery paused: ${licenceRequiredMessage(e)} Queued entries are kept and sent once enterprise features are available again.`;
}

/** A path id: 400 when it is not a number, 404 (via the lookups) when no stream has it. */
const streamId = (raw: string): number => parseId(raw);

type Raw = {
  id: number;
  name: string;
  stream_type: LogStream["stream_type"];
  url: string;
  username: string | null;
  password: string | null;
  cert: string | null;
  last_success: string | null;
  backlog: number;
  last_error: string | null;
  last_error_at: string | null;
};

const iso = (col: string) => sql.raw(`to_char(${col} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`);

async function rows(tx: Tx, id?: number): Promise<LogStream[]> {
  const paused = await pausedReason();
  const r = await tx.execute<Raw>(sql`
    select s.id, s.name, s.stream_type, s.url, s.username, s.password, s.cert,
           ${iso("st.last_success")} last_success, coalesce(st.backlog, 0)::int backlog,
           e.last_error, ${iso("e.last_attempt_at")} last_error_at
      from activity_log_streams s
      left join lateral (
        select max(delivered_at) last_success, count(*) filter (where state = 'pending') backlog
          from outbox where kind = 'stream' and target_id = s.id
      ) st on true
      left join lateral (
        select last_error, last_attempt_at from outbox
         where kind = 'stream' and target_id = s.id and last_error is not null
         order by id desc limit 1
      ) e on true
     ${id === undefined ? sql`` : sql`where s.id = ${id}`}
     order by s.id`);
  return r.rows.map((x) => ({
    id: x.id,
    name: x.name,
    stream_type: x.stream_type,
    config: { url: x.url, username: x.username, password: x.password ? decryptSecret(x.password) : null, cert: x.cert },
    status: { last_success: x.last_success, backlog: x.backlog, last_error: x.last_error, last_error_at: x.last_error_at, paused },
  }));
}

export async function listLogStreams(): Promise<LogStream[]> {
  return rows(getDb());
}

export async function getLogStream(rawId: string): Promise<LogStream> {
  const [s] = await rows(getDb(), streamId(rawId));
  if (!s) throw notFound("activity log stream not found");
  return s;
}

function columns(input: LogStreamInput) {
  const c = input.stream_config;
  return {
    name: input.name,
    streamType: input.stream_type,
    url: c.url,
    username: c.username,
    password: c.password ? encryptSecret(c.password) : null,
    cert: c.cert,
  };
}

export async function createLogStream(actor: Actor, input: LogStreamInput): Promise<void> {
  await transaction(async (tx) => {
    const [row] = await tx.insert(activityLogStreams).values(columns(input)).returning({ id: activityLogStreams.id });
    // The stream receives what is logged from now on, this entry included.
    await recordActivity(tx, actor, { event: "activity_log_stream_created", description: `Activity log stream ${input.name} (${row.id}) added` });
  });
}

export async function updateLogStream(actor: Actor, rawId: string, input: LogStreamInput): Promise<void> {
  const id = streamId(rawId);
  await transaction(async (tx) => {
    const r = await tx.update(activityLogStreams).set(columns(input)).where(sql`${activityLogStreams.id} = ${id}`).returning({ id: activityLogStreams.id });
    if (!r.length) throw notFound("activity log stream not found");
    await recordActivity(tx, actor, { event: "activity_log_stream_modified", description: `Activity log stream ${input.name} modified` });
  });
}

/**
 * Delete the stream and what was still queued for it. No licence needed: an instance that
 * went over the free limits must still be able to stop sending its log somewhere.
 */
export async function deleteLogStream(actor: Actor, rawId: string): Promise<void> {
  const id = streamId(rawId);
  await transaction(async (tx) => {
    const r = await tx.delete(activityLogStreams).where(sql`${activityLogStreams.id} = ${id}`).returning({ name: activityLogStreams.name });
    if (!r.length) throw notFound("activity log stream not found");
    await tx.execute(sql`delete from outbox where kind = 'stream' and target_id = ${id}`);
    await recordActivity(tx, actor, { event: "activity_log_stream_removed", description: `Activity log stream ${r[0].name} removed` });
  });
}
