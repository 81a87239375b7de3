import "server-only";
import { sql, type SQL } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { transaction } from "../events";

/** Sample ids folded into the rollups per backfill run. */
export const BACKFILL_CHUNK = 250_000;

/** Hours stats_5min keeps (migration 0035): a day's window, from the hour of `from`, fits. */
export const STATS_FIVE_HOURS = 25;

/** Samples young enough for stats_5min (a condition on `collected_at`). */
const fiveMinuteAge = sql`collected_at >= now() - make_interval(hours => ${STATS_FIVE_HOURS})`;

/**
 * Add the per-device sums of the samples `source` yields (a CTE, or device_stats with a
 * condition) to a per-device rollup: stats_hour (buckets of an hour) or stats_5min (5 minutes).
 * One statement, usable as a data-modifying CTE; rows in key order so concurrent folds lock alike.
 */
function deviceRollupInsert(table: "stats_hour" | "stats_5min", source: SQL): SQL {
  const width = table === "stats_hour" ? "1 hour" : "5 minutes";
  return sql`
    insert into ${sql.raw(table)} as r (location_id, bucket, device_id, upload, download)
    select location_id, date_bin(${sql.raw(`'${width}'`)}, collected_at, timestamptz '1970-01-01 00:00:00+00') b, device_id, sum(upload), sum(download)
      from ${source}
     group by location_id, b, device_id order by location_id, b, device_id
    on conflict (location_id, bucket, device_id)
    do update set upload = r.upload + excluded.upload, download = r.download + excluded.download`;
}

/**
 * The stats-rollup-backfill job: samples written before migration 0026 (ids below
 * stats_rollup_state.backfill_below) are added to stats_hour, stats_minute, stats_5min (those of
 * the last STATS_FIVE_HOURS) and device_locations.last_sample_at, one chunk of ids per run,
 * newest first, in one transaction
 * with the state, so a chunk is counted exactly once. Ingest writes every newer sample's
 * rollups itself. Returns how many samples were folded in (0 once done).
 */
export async function backfillRollups(chunk = BACKFILL_CHUNK): Promise<number> {
  return transaction(async (tx) => {
    const [state] = (await tx.execute<{ below: string | null }>(sql`select backfill_below below from stats_rollup_state where id = 1 for update`)).rows;
    if (!state?.below) return 0;
    const below = Number(state.below);
    // Skip over gaps left by retention: start from the newest id still present below the mark.
    const [top] = (await tx.execute<{ id: string | null }>(sql`select max(id) id from device_stats where id < ${below}`)).rows;
    if (!top?.id) {
      await tx.execute(sql`update stats_rollup_state set backfill_below = null where id = 1`);
      return 0;
    }
    const hi = Number(top.id) + 1;
    const lo = Math.max(0, hi - chunk);
    const r = await tx.execute<{ n: number }>(sql`
      with s as (
        select device_id, location_id, collected_at, upload, download from device_stats where id >= ${lo} and id < ${hi}
      ),
      per_hour as (${deviceRollupInsert("stats_hour", sql`s`)}),
      per_five as (${deviceRollupInsert("stats_5min", sql`s where ${fiveMinuteAge}`)}),
      per_minute as (
        insert into stats_minute as m (location_id, bucket, upload, download)
        select location_id, date_bin('1 minute', collected_at, timestamptz '1970-01-01 00:00:00+00') b, sum(upload), sum(download)
          from s group by location_id, b order by location_id, b
        on conflict (location_id, bucket)
        do update set upload = m.upload + excluded.upload, download = m.download + excluded.download
      ),
      last_seen as (
        update device_locations dl set last_sample_at = greatest(dl.last_sample_at, x.at)
          from (select device_id, location_id, max(collected_at) at from s group by 1, 2) x
         where dl.device_id = x.device_id and dl.location_id = x.location_id
      )
      select count(*)::int n from s`);
    await tx.execute(sql`update stats_rollup_state set backfill_below = ${lo > 0 ? lo : null} where id = 1`);
    return r.rows[0]?.n ?? 0;
  });
}

/**
 * The stats-hour-rollup job: fold samples with ids from hour_from up to pending_hi into
 * stats_hour and stats_5min (from five_hi, which only an older console leaves behind
 * hour_from), once every transaction that was running when pending_hi was read has ended (so
 * no sample with a smaller id can still appear), then read the next pending_hi. Exact and
 * idempotent: the fold and the state move in one transaction. Queries add the samples from
 * hour_from on (five_hi for stats_5min) themselves (lib/stats/service.ts), so the series are
 * complete between runs.
 * Returns how many samples were folded.
 */
export async function rollHours(): Promise<number> {
  return transaction(async (tx) => {
    const [st] = (
      await tx.execute<{ hour_from: string; five_hi: string; pending_hi: string | null; pending_xmax: string | null; horizon: string }>(sql`
        select hour_from, greatest(five_hi, coalesce(backfill_below, 0)) five_hi, pending_hi, pending_xmax, pg_snapshot_xmin(pg_current_snapshot())::text::bigint horizon
          from stats_rollup_state where id = 1 for update`)
    ).rows;
    if (!st) return 0;
    let from = Number(st.hour_from);
    let folded = 0;
    // A console of a version before stats_5min (a rolling upgrade) folded hours only: catch up
    // (ids below backfill_below are the backfill's).
    if (Number(st.five_hi) < from) await foldFive(tx, Number(st.five_hi), from);
    const ready = st.pending_hi !== null && Number(st.horizon) >= Number(st.pending_xmax);
    if (ready) {
      const hi = Number(st.pending_hi);
      if (hi > from) folded = await foldHours(tx, from, hi);
      from = Math.max(from, hi);
    }
    if (ready || st.pending_hi === null) {
      await tx.execute(sql`
        update stats_rollup_state
           set hour_from = ${from}, five_hi = ${from},
               pending_hi = greatest(${from}, (select max(id) + 1 from device_stats)),
               pending_xmax = pg_snapshot_xmax(pg_current_snapshot())::text::bigint
         where id = 1`);
    } else if (Number(st.five_hi) < from) {
      await tx.execute(sql`update stats_rollup_state set five_hi = ${from} where id = 1`);
    }
    return folded;
  });
}

/** Add the samples with ids in [lo, hi) to stats_5min alone. */
async function foldFive(tx: Tx, lo: number, hi: number): Promise<void> {
  await tx.execute(deviceRollupInsert("stats_5min", sql`device_stats where id >= ${lo} and id < ${hi} and ${fiveMinuteAge}`));
}

/**
 * Add the samples with ids in [lo, hi) to stats_hour and stats_5min (all of them: they are a few
 * seconds old; the retention job drops what ages out); returns how many there were.
 */
async function foldHours(tx: Tx, lo: number, hi: number): Promise<number> {
  const r = await tx.execute<{ n: number }>(sql`
    with s as (select device_id, location_id, collected_at, upload, download from device_stats where id >= ${lo} and id < ${hi}),
    per_hour as (${deviceRollupInsert("stats_hour", sql`s`)}),
    per_five as (${deviceRollupInsert("stats_5min", sql`s`)})
    select count(*)::int n from s`);
  return r.rows[0]?.n ?? 0;
}

/**
 * Keep the rollups as long as the samples (DEFGUARD_STATS_RETENTION_DAYS, default 30), stats_5min
 * STATS_FIVE_HOURS (queries read it only for windows inside that).
 */
export async function pruneRollups(days: number): Promise<number> {
  const db = getDb();
  const a = await db.execute(sql`delete from stats_minute where bucket < now() - make_interval(days => ${days})`);
  // An hour bucket is kept while any part of it is inside the retention.
  const b = await db.execute(sql`delete from stats_hour where bucket < now() - make_interval(days => ${days}) - interval '1 hour'`);
  const c = await db.execute(
    sql`delete from stats_5min where bucket < now() - make_interval(hours => ${Math.min(STATS_FIVE_HOURS, days * 24)}) - interval '5 minutes'`,
  );
  return (a.rowCount ?? 0) + (b.rowCount ?? 0) + (c.rowCount ?? 0);
}
