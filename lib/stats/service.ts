import "server-only";
import { sql, type SQL } from "drizzle-orm";
import { getDb } from "../db";
import { userInfos, type UserInfo } from "../users/service";
import { requireLocation } from "../locations/service";
import { bucketSeconds } from "./buckets";
import { endpointHost } from "../wireguard/config";

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
  const [counts] = (
    await db.execute<{ users: number; user_devices: number; network_devices: number; cur_users: number; cur_user_devices: number; cur_network_devices: number }>(sql`
      with dev as (
        select dl.device_id, d.user_id, d.device_type,
               bool_or(dl.last_sample_at >= ${from}) active,
               bool_or(dl.last_handshake > now() - make_interval(secs => l.peer_disconnect_threshold)) cur
          from device_locations dl join devices d on d.id = dl.device_id join locations l on l.id = dl.location_id
         where ${locFilter("dl", locationId)}
         group by dl.device_id, d.user_id, d.device_type
      )
      select count(distinct user_id) filter (where active and device_type = 'user')::int users,
             count(*) filter (where active and device_type = 'user')::int user_devices,
             count(*) filter (where active and device_type = 'network')::int network_devices,
             count(distinct user_id) filter (where cur and device_type = 'user')::int cur_users,
             count(*) filter (where cur and device_type = 'user')::int cur_user_devices,
             count(*) filter (where cur and device_type = 'network')::int cur_network_devices
        from dev`)
  ).rows;
  const start = sql`${binOf(60, sql`${from}::timestamptz`)}`;
  const series = (
    await db.execute<{ collected_at: string; upload: number; download: number }>(sql`
      select ${binOf(bucket, sql`m.bucket`)} collected_at, sum(m.upload)::float8 upload, sum(m.download)::float8 download
        from stats_minute m
       where m.bucket >= ${start} and ${locFilter("m", locationId)}
       group by 1 having sum(m.upload) + sum(m.download) > 0 order by 1`)
  ).rows;
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
/** Raw samples read for per-device series below one hour, at most (else the hourly rollup). */
const RAW_ROW_LIMIT = 250_000;
/** Samples per device and hour at the agent's default stats period (30 s). */
const SAMPLES_PER_HOUR = 120;
const STEPS = [60, 300, 600, 900, 1800, 3600, 7200, 10800, 14400, 21600, 43200, 86400];

/**
 * Bucket width of the per-device series: at most MAX_DEVICE_POINTS per device and
 * DEVICE_POINT_BUDGET in all; below an hour only while the raw samples it reads stay few
 * (otherwise whole hours from stats_hour). Pure, for the tests.
 */
export function deviceSeriesStep(windowSeconds: number, devices: number): number {
  const w = Math.max(60, windowSeconds);
  const maxPoints = Math.max(1, Math.min(MAX_DEVICE_POINTS, Math.floor(DEVICE_POINT_BUDGET / Math.max(1, devices))));
  const rawRows = devices * SAMPLES_PER_HOUR * (w / 3600);
  for (const step of STEPS) {
    if (step < 3600 && rawRows > RAW_ROW_LIMIT) continue;
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

/**
 * GET /network/{id}/stats/users: devices active in the window (a sample or a handshake since
 * `from`), grouped by user, each with its transfer series at deviceSeriesStep: from the hourly
 * rollup (and the samples not folded into it yet) for steps of an hour and more (the window
 * then starts at the hour of `from`), from the samples below that.
 */
export async function locationUserStats(locationId: number, from: Date) {
  const db = getDb();
  const rows = (
    await db.execute<DeviceStatsRow>(sql`
      select d.id, d.name, d.user_id, d.device_type, dl.ips, dl.last_endpoint, dl.last_handshake, dl.connected_at,
             coalesce(dl.last_handshake > now() - make_interval(secs => l.peer_disconnect_threshold), false) connected,
             case when dl.is_authorized and l.location_mfa_mode <> 'disabled' then dl.authorized_at end mfa_since
        from device_locations dl join devices d on d.id = dl.device_id join locations l on l.id = dl.location_id
       where dl.location_id = ${locationId}
         and (dl.last_handshake >= ${from} or dl.last_sample_at >= ${from} or (dl.is_authorized and l.location_mfa_mode <> 'disabled'))
       order by d.user_id, d.name`)
  ).rows;
  const step = deviceSeriesStep((Date.now() - from.getTime()) / 1000, rows.length);
  const series = new Map<number, [number, number, number][]>();
  if (rows.length) {
    const source =
      step >= 3600
        ? // Folded hours, plus the few samples the hourly job has not folded yet (ids from hour_from on).
          sql`select x.device_id, ${binOf(step, sql`x.bucket`)} t, sum(x.upload) up, sum(x.download) down
                from (select h.device_id, h.bucket, h.upload, h.download from stats_hour h
                       where h.location_id = ${locationId} and h.bucket >= ${binOf(3600, sql`${from}::timestamptz`)}
                      union all
                      select s.device_id, s.collected_at, s.upload, s.download from device_stats s
                       where s.id >= (select hour_from from stats_rollup_state where id = 1)
                         and s.location_id = ${locationId} and s.collected_at >= ${binOf(3600, sql`${from}::timestamptz`)}) x
               group by 1, 2`
        : sql`select s.device_id, ${binOf(step, sql`s.collected_at`)} t, sum(s.upload) up, sum(s.download) down
                from device_stats s
               where s.location_id = ${locationId} and s.collected_at >= ${from}
               group by 1, 2`;
    const r = await db.execute<{ device_id: number; stats: [number, number, number][] }>(sql`
      select b.device_id, json_agg(json_build_array(extract(epoch from b.t)::bigint, b.up::float8, b.down::float8) order by b.t) stats
        from (${source}) b
       where b.up + b.down > 0
       group by b.device_id`);
    for (const x of r.rows) series.set(Number(x.device_id), x.stats);
  }
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
    stats: (series.get(r.id) ?? []).map(([at, upload, download]) => ({ collected_at: new Date(at * 1000).toISOString(), upload, download })),
  });
  const byUser = new Map<number, DeviceStatsRow[]>();
  for (const r of rows) {
    if (r.device_type !== "user") continue;
    const list = byUser.get(r.user_id);
    if (list) list.push(r);
    else byUser.set(r.user_id, [r]);
  }
  const users = await userInfos([...byUser.keys()]);
  const user_devices: { user: UserInfo; devices: ReturnType<typeof device>[] }[] = [];
  for (const [userId, list] of byUser) {
    const user = users.get(userId);
    if (user) user_devices.push({ user, devices: list.map(device) });
  }
  return { user_devices, network_devices: rows.filter((r) => r.device_type === "network").map(device) };
}
