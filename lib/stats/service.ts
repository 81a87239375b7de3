import "server-only";
import { sql } from "drizzle-orm";
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

/** The start of a sample's bucket (date_bin: timestamp arithmetic, not numeric epoch maths). */
const bucketOf = (bucket: number) => sql`date_bin(make_interval(secs => ${bucket}), s.collected_at, timestamptz '1970-01-01 00:00:00+00')`;

const locFilter = (locationId?: number) => (locationId === undefined ? sql`true` : sql`s.location_id = ${locationId}`);
const dlFilter = (locationId?: number) => (locationId === undefined ? sql`true` : sql`dl.location_id = ${locationId}`);

/**
 * GET /network/stats and /network/{id}/stats (docs/api.md): who was active in the window, who is
 * connected now (handshake younger than the location's peer_disconnect_threshold), the
 * transfer in the window and its series (points without traffic are dropped).
 */
export async function networkStats(from: Date, locationId?: number) {
  const db = getDb();
  const bucket = bucketSeconds(from);
  // Per device first (one hash aggregate over the window), then the few thousand devices joined:
  // count(distinct …) straight over every sample was most of the overview's time.
  const [active] = (
    await db.execute<{ users: number; user_devices: number; network_devices: number; upload: number; download: number }>(sql`
      select count(distinct d.user_id) filter (where d.device_type = 'user')::int users,
             count(*) filter (where d.device_type = 'user')::int user_devices,
             count(*) filter (where d.device_type = 'network')::int network_devices,
             coalesce(sum(s.upload), 0)::float8 upload, coalesce(sum(s.download), 0)::float8 download
      from (select s.device_id, sum(s.upload) upload, sum(s.download) download
              from device_stats s
             where s.collected_at >= ${from} and ${locFilter(locationId)}
             group by s.device_id) s
      join devices d on d.id = s.device_id`)
  ).rows;
  const [current] = (
    await db.execute<{ users: number; user_devices: number; network_devices: number }>(sql`
      select count(distinct d.user_id) filter (where d.device_type = 'user')::int users,
             count(distinct dl.device_id) filter (where d.device_type = 'user')::int user_devices,
             count(distinct dl.device_id) filter (where d.device_type = 'network')::int network_devices
      from device_locations dl join devices d on d.id = dl.device_id join locations l on l.id = dl.location_id
      where ${dlFilter(locationId)} and dl.last_handshake > now() - make_interval(secs => l.peer_disconnect_threshold)`)
  ).rows;
  const series = (
    await db.execute<{ collected_at: string; upload: number; download: number }>(sql`
      select ${bucketOf(bucket)} collected_at, sum(s.upload)::float8 upload, sum(s.download)::float8 download
      from device_stats s
      where s.collected_at >= ${from} and ${locFilter(locationId)}
      group by 1 having sum(s.upload) + sum(s.download) > 0 order by 1`)
  ).rows;
  return {
    active_users: active.users,
    active_user_devices: active.user_devices,
    active_network_devices: active.network_devices,
    current_active_users: current.users,
    current_active_user_devices: current.user_devices,
    current_active_network_devices: current.network_devices,
    upload: Number(active.upload),
    download: Number(active.download),
    transfer_series: series.map((p) => ({ collected_at: new Date(p.collected_at).toISOString(), upload: Number(p.upload), download: Number(p.download) })),
  };
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
  /** [bucket start in unix seconds, upload, download] per bucket with traffic. */
  stats: [number, number, number][] | null;
};

/** GET /network/{id}/stats/users: devices active in the window, grouped by user, with series. */
export async function locationUserStats(locationId: number, from: Date) {
  const bucket = bucketSeconds(from);
  const rows = (
    await getDb().execute<DeviceStatsRow>(sql`
      with b as (
        select s.device_id, ${bucketOf(bucket)} collected_at, sum(s.upload)::float8 upload, sum(s.download)::float8 download
        from device_stats s where s.location_id = ${locationId} and s.collected_at >= ${from}
        group by 1, 2
      ),
      per as (
        select device_id,
               json_agg(json_build_array(extract(epoch from collected_at)::bigint, upload, download) order by collected_at)
                 filter (where upload + download > 0) stats
        from b group by device_id
      )
      select d.id, d.name, d.user_id, d.device_type, dl.ips, dl.last_endpoint, dl.last_handshake, dl.connected_at,
             coalesce(dl.last_handshake > now() - make_interval(secs => l.peer_disconnect_threshold), false) connected,
             case when dl.is_authorized and l.location_mfa_mode <> 'disabled' then dl.authorized_at end mfa_since,
             per.stats
      from device_locations dl join devices d on d.id = dl.device_id join locations l on l.id = dl.location_id
      left join per on per.device_id = d.id
      where dl.location_id = ${locationId}
        and (dl.last_handshake >= ${from} or per.device_id is not null or (dl.is_authorized and l.location_mfa_mode <> 'disabled'))
      order by d.user_id, d.name`)
  ).rows;
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
    stats: (r.stats ?? []).map(([at, upload, download]) => ({ collected_at: new Date(at * 1000).toISOString(), upload, download })),
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
