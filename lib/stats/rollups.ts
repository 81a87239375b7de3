import "server-only";
import { sql } from "drizzle-orm";
import { getDb } from "../db";
import { transaction } from "../events";

/** Sample ids folded into the rollups per backfill run. */
export const BACKFILL_CHUNK = 250_000;

/**
 * The stats-rollup-backfill job: samples written before migration 0026 (ids below
 * stats_rollup_state.backfill_below) are added to stats_hour, stats_minute and
 * device_locations.last_sample_at, one chunk of ids per run, newest first, in one transaction
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
      per_hour as (
        insert into stats_hour as h (location_id, bucket, device_id, upload, download)
        select location_id, date_bin('1 hour', collected_at, timestamptz '1970-01-01 00:00:00+00') b, device_id, sum(upload), sum(download)
          from s group by location_id, b, device_id order by location_id, b, device_id
        on conflict (location_id, bucket, device_id)
        do update set upload = h.upload + excluded.upload, download = h.download + excluded.download
      ),
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

/** Keep the rollups as long as the samples (DEFGUARD_STATS_RETENTION_DAYS, default 30). */
export async function pruneRollups(days: number): Promise<number> {
  const db = getDb();
  const a = await db.execute(sql`delete from stats_minute where bucket < now() - make_interval(days => ${days})`);
  // An hour bucket is kept while any part of it is inside the retention.
  const b = await db.execute(sql`delete from stats_hour where bucket < now() - make_interval(days => ${days}) - interval '1 hour'`);
  return (a.rowCount ?? 0) + (b.rowCount ?? 0);
}
