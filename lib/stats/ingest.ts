import "server-only";
import { getStatsPool } from "../db";
import { describeError } from "../log-errors";
import { metrics } from "../metrics";

/** One gateway.PeerStats sample (counters are cumulative, as the interface reports them). */
export interface PeerSample {
  public_key: string;
  endpoint: string;
  upload: number;
  download: number;
  latest_handshake: number;
}

/** Samples per write: large enough to amortise the statement, small enough to keep locks short. */
export const STATS_BATCH = 2500;

/**
 * Write a batch of samples of one location in one statement: per device the transfer since the
 * last sample (a counter that went backwards means the interface restarted: the new value is
 * the delta), the latest counters, handshake, endpoint and sample time, and the batch's sum
 * added to its minute in stats_minute (one row; the per-device hourly rollup is folded by a job,
 * lib/stats/rollups.ts: per sample here it halved the ingest rate). Unknown keys are skipped;
 * returns how many samples matched a device.
 *
 * Cost notes (bench/suites/gateway.ts measures it): one round trip on the stats pool
 * (synchronous_commit off), rows locked in device order so concurrent writers and the presence
 * job cannot deadlock, device_stats without foreign keys (delete triggers keep it clean) and
 * device_locations with fillfactor 80 so the counter updates stay HOT.
 */
export async function ingestBatch(locationId: number, samples: PeerSample[], at = new Date()): Promise<number> {
  if (!samples.length) return 0;
  // Several samples of one peer in a batch: the latest counters carry the whole delta.
  const latest = new Map<string, PeerSample>();
  for (const s of samples) latest.set(s.public_key, s);
  const list = [...latest.values()];
  const r = await getStatsPool().query(
    `with input as (
       select * from unnest($2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::text[]) as i(pubkey, up, down, hs, ep)
     ),
     prev as (
       select dl.device_id, dl.location_id, dl.upload_total, dl.download_total, i.up, i.down, i.hs, i.ep
       from input i
       join devices d on d.wireguard_pubkey = i.pubkey
       join device_locations dl on dl.device_id = d.id and dl.location_id = $1
       order by dl.device_id
       for update of dl
     ),
     upd as (
       update device_locations dl
          set upload_total = p.up, download_total = p.down,
              last_handshake = case when p.hs > 0 then to_timestamp(p.hs) else dl.last_handshake end,
              last_endpoint = coalesce(nullif(p.ep, ''), dl.last_endpoint),
              last_sample_at = greatest(dl.last_sample_at, $7)
         from prev p
        where dl.device_id = p.device_id and dl.location_id = p.location_id
     ),
     delta as (
       select device_id, location_id, ep, hs,
              case when up >= upload_total then up - upload_total else up end up_d,
              case when down >= download_total then down - download_total else down end down_d
         from prev
     ),
     per_minute as (
       insert into stats_minute as m (location_id, bucket, upload, download)
       select $1, date_bin('1 minute', $7::timestamptz, timestamptz '1970-01-01 00:00:00+00'), sum(up_d), sum(down_d)
         from delta having count(*) > 0
       on conflict (location_id, bucket)
       do update set upload = m.upload + excluded.upload, download = m.download + excluded.download
     )
     insert into device_stats (device_id, location_id, collected_at, upload, download, endpoint, latest_handshake)
     select device_id, location_id, $7, up_d, down_d, nullif(ep, ''), case when hs > 0 then to_timestamp(hs) end
       from delta`,
    [
      locationId,
      list.map((s) => s.public_key),
      list.map((s) => s.upload),
      list.map((s) => s.download),
      list.map((s) => s.latest_handshake),
      list.map((s) => s.endpoint),
      at,
    ],
  );
  const matched = r.rowCount ?? 0;
  metrics().statsSamples.inc(matched);
  if (matched < list.length) {
    console.warn(`[stats] location ${locationId}: ignored ${list.length - matched} sample(s) for unknown public keys`);
  }
  return matched;
}

/** Collects samples from a gateway's stats stream and writes them in batches. */
export class StatsBuffer {
  private pending: PeerSample[] = [];
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly locationId: number,
    private readonly maxBatch = STATS_BATCH,
    private readonly maxDelayMs = 500,
  ) {}

  push(s: PeerSample) {
    this.pending.push(s);
    if (this.pending.length >= this.maxBatch) void this.flush();
    else if (!this.timer) this.timer = setTimeout(() => void this.flush(), this.maxDelayMs);
  }

  flush(): Promise<unknown> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = [];
    if (batch.length) {
      this.writing = this.writing
        .then(() => ingestBatch(this.locationId, batch))
        .catch((err) => console.error(`[stats] writing ${batch.length} samples failed:`, describeError(err)));
    }
    return this.writing;
  }
}
