import "server-only";
import { sql, type SQL } from "drizzle-orm";
import { getDb } from "../db";
import { userInfos, type UserInfo } from "../users/service";
import { requireLocation } from "../locations/service";
import { bucketSeconds } from "./buckets";
import { endpointHost } from "../wireguard/config";
import { STATS_FIVE_HOURS } from "./rollups";

export const DEFAULT_WINDOW_MS = 3600_000;

export { bucketSeconds };

/** The start of a stats window: ?from, or one hour ago. */
export function windowStart(from?: Date): Date {
  return from ?? new Date(Date.now() - DEFAULT_WINDOW_MS);
}

/** GET /network/{id}/stats: 404 for an unknown location, else networkStats of that location. */
export async function locationStats(locationId: number, from?: Date) {
  await requireLocation(getDb(), locationId);
  return networkStats(windowStart(from), locationId);
}

/** GET /network/{id}/stats/users: 404 for an unknown location, else locationUserStats. */
export async function locationUserStatsChecked(locationId: number, from?: Date) {
  await requireLocation(getDb(), locationId);
  return locationUserStats(locationId, windowStart(from));
}

const EPOCH = sql`timestamptz '1970-01-01 00:00:00+00'`;
/** date_bin of a timestamp column into buckets of `secs` seconds from the epoch. */
const binOf = (secs: number, col: SQL) => sql`date_bin(make_interval(secs => ${secs}), ${col}, ${EPOCH})`;

const locFilter = (alias: string, locationId?: number) =>
  locationId === undefined ? sql`true` : sql`${sql.raw(alias)}.location_id = ${locationId}`;

/**
 * GET /network/stats and /network/{id}/stats (docs/api.md): who was active in the window (a
 * stats sample at or after `from`), who is connected now (handshake younger than the location's
 * peer_disconnect_threshold), the transfer in the window and its series (points without
 * traffic are dropped).
 *
 * Read from the rollups, never from the samples: "active" is device_locations.last_sample_at,
 * transfer and series come from stats_minute (one row per location and minute), so the cost
 * does not grow with the number of devices. The window's transfer starts at the minute `from`
 * falls in (the rollups' resolution).
 */
export async function networkStats(from: Date, locationId?: number) {
  const db = getDb();
  const bucket = bucketSeconds(from);
  const start = sql`${binOf(60, sql`${from}::timestamptz`)}`;
  // Two independent reads, on two connections at once. Counts: rows with neither a sample in the
  // window nor a live handshake are dropped before any join, then one hash aggregate per device
  // (a device may be in several locations) and one per user; no sorts (count distinct sorted).
  // Series: float8 sums (exact below 2^53 bytes per bucket; numeric sums took twice as long).
  const [countsResult, seriesResult] = await Promise.all([
    db.execute<{ users: number; user_devices: number; network_devices: number; cur_users: number; cur_user_devices: number; cur_network_devices: number }>(sql`
      with dev as (
        select dl.device_id,
               bool_or(dl.last_sample_at >= ${from}) active,
               bool_or(dl.last_handshake > now() - make_interval(secs => l.peer_disconnect_threshold)) cur
          from device_locations dl join locations l on l.id = dl.location_id
         where ${locFilter("dl", locationId)}
           and (dl.last_sample_at >= ${from} or dl.last_handshake > now() - make_interval(secs => l.peer_disconnect_threshold))
         group by dl.device_id
      ),
      per_user as (
        select d.user_id, d.device_type, count(*) filter (where dev.active) active, count(*) filter (where dev.cur) cur
          from dev join devices d on d.id = dev.device_id
         group by d.user_id, d.device_type
      )
      select count(*) filter (where device_type = 'user' and active > 0)::int users,
             coalesce(sum(active) filter (where device_type = 'user'), 0)::int user_devices,
             coalesce(sum(active) filter (where device_type = 'network'), 0)::int network_devices,
             count(*) filter (where device_type = 'user' and cur > 0)::int cur_users,
             coalesce(sum(cur) filter (where device_type = 'user'), 0)::int cur_user_devices,
             coalesce(sum(cur) filter (where device_type = 'network'), 0)::int cur_network_devices
        from per_user`),
    db.execute<{ collected_at: string; upload: number; download: number }>(sql`
      select ${binOf(bucket, sql`m.bucket`)} collected_at, sum(m.upload::float8) upload, sum(m.download::float8) download
        from stats_minute m
       where m.bucket >= ${start} and ${locFilter("m", locationId)}
       group by 1 having sum(m.upload::float8) + sum(m.download::float8) > 0 order by 1`),
  ]);
  const [counts] = countsResult.rows;
  const series = seriesResult.rows;
  let upload = 0;
  let download = 0;
  for (const p of series) {
    upload += Number(p.upload);
    download += Number(p.download);
  }
  return {
    active_users: counts.users,
    active_user_devices: counts.user_devices,
    active_network_devices: counts.network_devices,
    current_active_users: counts.cur_users,
    current_active_user_devices: counts.cur_user_devices,
    current_active_network_devices: counts.cur_network_devices,
    upload,
    download,
    transfer_series: series.map((p) => ({ collected_at: new Date(p.collected_at).toISOString(), upload: Number(p.upload), download: Number(p.download) })),
  };
}

/** At most this many points per device in GET /network/{id}/stats/users. */
export const MAX_DEVICE_POINTS = 60;
/** At most this many points in one GET /network/{id}/stats/users answer (keeps it under 2 MB). */
export const DEVICE_POINT_BUDGET = 15_000;
/** Raw samples read for per-device series of 1-minute buckets, at most (else wider buckets). */
const RAW_ROW_LIMIT = 250_000;
/** Samples per device and hour at the agent's default stats period (30 s). */
const SAMPLES_PER_HOUR = 120;
const STEPS = [60, 300, 600, 900, 1800, 3600, 7200, 10800, 14400, 21600, 43200, 86400];

/** Where a per-device series of `step`-second buckets is read from (deviceSeries). */
export function deviceSeriesSource(step: number, fiveMinutes: boolean): "hour" | "five" | "samples" {
  return step >= 3600 ? "hour" : fiveMinutes && step % 300 === 0 ? "five" : "samples";
}

/**
 * Bucket width of the per-device series: at most MAX_DEVICE_POINTS per device and
 * DEVICE_POINT_BUDGET in all. `fiveMinutes`: stats_5min covers the window, so buckets of 5 to 30
 * minutes read it; buckets read from the samples (1 minute, or 5 to 30 minutes without
 * stats_5min) only while those samples stay few (else wider buckets, whole hours from
 * stats_hour). Pure, for the tests.
 */
export function deviceSeriesStep(windowSeconds: number, devices: number, fiveMinutes = false): number {
  const w = Math.max(60, windowSeconds);
  const maxPoints = Math.max(1, Math.min(MAX_DEVICE_POINTS, Math.floor(DEVICE_POINT_BUDGET / Math.max(1, devices))));
  const rawRows = devices * SAMPLES_PER_HOUR * (w / 3600);
  for (const step of STEPS) {
    if (deviceSeriesSource(step, fiveMinutes) === "samples" && rawRows > RAW_ROW_LIMIT) continue;
    // Buckets aligned to the epoch: a window may touch one more bucket than w / step.
    if (Math.ceil(w / step) + 1 <= maxPoints) return step;
  }
  return 86400;
}

type DeviceStatsRow = {
  id: number;
  name: string;
  user_id: number;
  device_type: string;
  ips: string[];
  last_endpoint: string | null;
  last_handshake: string | null;
  connected_at: string | null;
  connected: boolean;
  /** When the device's MFA session in this (MFA) location began; null without one. */
  mfa_since: string | null;
};

type SeriesPoint = { collected_at: string; upload: number; download: number };
/** What the series query needs of stats_rollup_state: the first ids not folded into stats_hour and stats_5min yet, whether stats_5min covers the window. */
type RollupState = { hourFrom: string; fiveHi: string; fiveCovers: boolean };

/**
 * Per-device transfer series of a location since `from`, in buckets of `step` seconds, from
 * deviceSeriesSource: stats_hour (the window then starts at the hour of `from`) or stats_5min (at
 * its 5 minutes), each with the samples the job has not folded into it yet, or
 * the samples. Buckets without traffic are left out. PostgreSQL sends one JSON array of
 * [device, bucket start in epoch seconds, upload, download] from one hash aggregate (sorting and
 * building a JSON array per device cost more than the aggregate itself); here each device's
 * points are put in time order and each bucket's ISO string is made once.
 */
async function deviceSeries(locationId: number, from: Date, step: number, state: RollupState): Promise<Map<number, SeriesPoint[]>> {
  const kind = deviceSeriesSource(step, state.fiveCovers);
  const rollup = (table: string, secs: number, unfolded: string) => {
    const start = binOf(secs, sql`${from}::timestamptz`);
    return sql`select r.device_id, r.bucket at, r.upload, r.download from ${sql.raw(table)} r
                where r.location_id = ${locationId} and r.bucket >= ${start}
               union all
               select s.device_id, s.collected_at, s.upload, s.download from device_stats s
                where s.id >= ${unfolded}::bigint and s.location_id = ${locationId} and s.collected_at >= ${start}`;
  };
  const source =
    kind === "hour"
      ? rollup("stats_hour", 3600, state.hourFrom)
      : kind === "five"
        ? rollup("stats_5min", 300, state.fiveHi)
        : sql`select s.device_id, s.collected_at at, s.upload, s.download from device_stats s
               where s.location_id = ${locationId} and s.collected_at >= ${from}`;
  const r = await getDb().execute<{ points: [number, number, number, number][] | null }>(sql`
    select json_agg(json_build_array(b.device_id, date_part('epoch', b.t)::bigint, b.up, b.down)) points
      from (select x.device_id, ${binOf(step, sql`x.at`)} t, sum(x.upload::float8) up, sum(x.download::float8) down
              from (${source}) x
             group by 1, 2) b
     where b.up + b.down > 0`);
  const iso = new Map<number, string>();
  const out = new Map<number, SeriesPoint[]>();
  for (const [device, t, upload, download] of r.rows[0]?.points ?? []) {
    let at = iso.get(t);
    if (at === undefined) iso.set(t, (at = new Date(t * 1000).toISOString()));
    const p = { collected_at: at, upload, download };
    const list = out.get(device);
    if (list) list.push(p);
    else out.set(device, [p]);
  }
  // ISO strings of one format sort as their times do.
  for (const list of out.values()) list.sort((a, b) => (a.collected_at < b.collected_at ? -1 : 1));
  return out;
}

/**
 * GET /network/{id}/stats/users: devices active in the window (a sample or a handshake since
 * `from`), grouped by user, each with its transfer series at deviceSeriesStep (deviceSeries).
 * The devices and the rollup state are read at once, then the series and the users' UserInfo.
 */
export async function locationUserStats(locationId: number, from: Date) {
  const db = getDb();
  const [rowsResult, stateResult] = await Promise.all([
    db.execute<DeviceStatsRow>(sql`
      select d.id, d.name, d.user_id, d.device_type, dl.ips, dl.last_endpoint, dl.last_handshake, dl.connected_at,
             coalesce(dl.last_handshake > now() - make_interval(secs => l.peer_disconnect_threshold), false) connected,
             case when dl.is_authorized and l.location_mfa_mode <> 'disabled' then dl.authorized_at end mfa_since
        from device_locations dl join devices d on d.id = dl.device_id join locations l on l.id = dl.location_id
       where dl.location_id = ${locationId}
         and (dl.last_handshake >= ${from} or dl.last_sample_at >= ${from} or (dl.is_authorized and l.location_mfa_mode <> 'disabled'))
       order by d.user_id, d.name`),
    // A value rather than a subquery in the series query: with the id known the planner reads the
    // few unfolded samples by primary key (for a subquery it assumed a third of the table and
    // planned a parallel scan).
    db.execute<{ hour_from: string; five_hi: string; five_from: number }>(
      sql`select hour_from::text hour_from, greatest(five_hi, coalesce(backfill_below, 0))::text five_hi, date_part('epoch', five_from)::float8 five_from
            from stats_rollup_state where id = 1`,
    ),
  ]);
  const rows = rowsResult.rows;
  const st = stateResult.rows[0];
  // stats_5min holds the window: it starts after five_from and inside the rollup's retention.
  const fiveCovers = !!st && from.getTime() >= Math.max(Number(st.five_from) * 1000, Date.now() - STATS_FIVE_HOURS * 3600_000);
  const state: RollupState = { hourFrom: st?.hour_from ?? "1", fiveHi: st?.five_hi ?? "1", fiveCovers };
  const step = deviceSeriesStep((Date.now() - from.getTime()) / 1000, rows.length, fiveCovers);
  const userIds = [...new Set(rows.filter((r) => r.device_type === "user").map((r) => r.user_id))];
  const [series, users] = await Promise.all([rows.length ? deviceSeries(locationId, from, step, state) : new Map<number, SeriesPoint[]>(), userInfos(userIds)]);
  const device = (r: DeviceStatsRow) => ({
    id: r.id,
    name: r.name,
    wireguard_ips: r.ips,
    public_ip: r.last_endpoint ? endpointHost(r.last_endpoint) : null,
    // When the current connection began (kept by the presence job); the last handshake beside it.
    connected_at: r.connected && r.connected_at ? new Date(r.connected_at).toISOString() : null,
    last_handshake: r.last_handshake ? new Date(r.last_handshake).toISOString() : null,
    connected: r.connected,
    /** The device is connected through an MFA session (MFA locations) since then; not in defguard's answer. */
    mfa_session_since: r.mfa_since ? new Date(r.mfa_since).toISOString() : null,
    stats: series.get(r.id) ?? [],
  });
  const byUser = new Map<number, DeviceStatsRow[]>();
  for (const r of rows) {
    if (r.device_type !== "user") continue;
    const list = byUser.get(r.user_id);
    if (list) list.push(r);
    else byUser.set(r.user_id, [r]);
  }
  const user_devices: { user: UserInfo; devices: ReturnType<typeof device>[] }[] = [];
  for (const [userId, list] of byUser) {
    const user = users.get(userId);
    if (user) user_devices.push({ user, devices: list.map(device) });
  }
  return { user_devices, network_devices: rows.filter((r) => r.device_type === "network").map(device) };
}
