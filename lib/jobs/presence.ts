import "server-only";
import { sql } from "drizzle-orm";
import { getDb } from "../db";
import { pruneRollups } from "../stats/rollups";

/**
 * Mark devices connected or disconnected by handshake age against their location's
 * peer_disconnect_threshold, and log each change in the activity log (module "vpn").
 * Returns how many devices changed state.
 */
export async function updatePresence(): Promise<{ connected: number; disconnected: number }> {
  // One statement: rows a stats write holds right now are skipped (next run picks them up), so
  // the job never waits on, or deadlocks with, lib/stats/ingest; the activity events are written
  // by the same statement rather than one INSERT per device.
  const r = await getDb().execute<{ now_connected: boolean; n: number }>(sql`
    with fresh as (
      select dl.device_id, dl.location_id,
             coalesce(dl.last_handshake > now() - make_interval(secs => l.peer_disconnect_threshold), false) now_connected
      from device_locations dl join locations l on l.id = dl.location_id
      where dl.connected <> coalesce(dl.last_handshake > now() - make_interval(secs => l.peer_disconnect_threshold), false)
      order by dl.device_id, dl.location_id
      for update of dl skip locked
    ),
    upd as (
      update device_locations dl
         set connected = f.now_connected,
             connected_at = case when f.now_connected then dl.last_handshake else dl.connected_at end
        from fresh f
       where dl.device_id = f.device_id and dl.location_id = f.location_id
      returning dl.device_id, dl.location_id, f.now_connected, dl.last_endpoint
    ),
    logged as (
      insert into activity_log (user_id, username, location, ip, event, module, device, description)
      select us.id, us.username, l.name,
             regexp_replace(regexp_replace(u.last_endpoint, ':[0-9]+$', ''), '^\\[|\\]$', '', 'g'),
             case when u.now_connected then 'vpn_client_connected' else 'vpn_client_disconnected' end, 'vpn', d.name,
             case when u.now_connected then d.name || ' connected to ' || l.name else d.name || ' disconnected from ' || l.name end
      from upd u join devices d on d.id = u.device_id join locations l on l.id = u.location_id join users us on us.id = d.user_id
      returning 1
    )
    select now_connected, count(*)::int n from upd group by now_connected`);
  const count = (c: boolean) => r.rows.find((x) => x.now_connected === c)?.n ?? 0;
  return { connected: count(true), disconnected: count(false) };
}

/** Keep per-interval stats and their rollups for DEFGUARD_STATS_RETENTION_DAYS (default 30). */
export async function pruneStats(): Promise<number> {
  const days = Number(process.env.DEFGUARD_STATS_RETENTION_DAYS || 30);
  const r = await getDb().execute(sql`delete from device_stats where collected_at < now() - make_interval(days => ${days})`);
  return (r.rowCount ?? 0) + (await pruneRollups(days));
}
