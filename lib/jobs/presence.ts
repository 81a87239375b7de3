import { sql } from "drizzle-orm";
import { getDb } from "../db";
import { endpointHost } from "../wireguard/config";

/**
 * Mark devices connected or disconnected by handshake age against their location's
 * peer_disconnect_threshold, and log each change in the activity log (module "vpn").
 * Returns how many devices changed state.
 */
export async function updatePresence(): Promise<{ connected: number; disconnected: number }> {
  return getDb().transaction(async (tx) => {
    const changed = await tx.execute<{ device_id: number; location: string; device: string; username: string; user_id: number; now_connected: boolean; endpoint: string | null }>(sql`
      with fresh as (
        select dl.device_id, dl.location_id,
               coalesce(dl.last_handshake > now() - make_interval(secs => l.peer_disconnect_threshold), false) now_connected
        from device_locations dl join locations l on l.id = dl.location_id
      ),
      upd as (
        update device_locations dl
           set connected = f.now_connected,
               connected_at = case when f.now_connected then dl.last_handshake else dl.connected_at end
          from fresh f
         where dl.device_id = f.device_id and dl.location_id = f.location_id and dl.connected <> f.now_connected
        returning dl.device_id, dl.location_id, f.now_connected, dl.last_endpoint
      )
      select u.device_id, l.name location, d.name device, us.username, us.id user_id, u.now_connected, u.last_endpoint endpoint
      from upd u join devices d on d.id = u.device_id join locations l on l.id = u.location_id join users us on us.id = d.user_id`);
    for (const c of changed.rows) {
      await tx.execute(sql`
        insert into activity_log (user_id, username, location, ip, event, module, device, description)
        values (${c.user_id}, ${c.username}, ${c.location}, ${c.endpoint ? endpointHost(c.endpoint) : null},
                ${c.now_connected ? "vpn_client_connected" : "vpn_client_disconnected"}, 'vpn', ${c.device},
                ${c.now_connected ? `${c.device} connected to ${c.location}` : `${c.device} disconnected from ${c.location}`})`);
    }
    const connected = changed.rows.filter((r) => r.now_connected).length;
    return { connected, disconnected: changed.rows.length - connected };
  });
}

/** Keep per-interval stats for DEFGUARD_STATS_RETENTION_DAYS (default 30). */
export async function pruneStats(): Promise<number> {
  const days = Number(process.env.DEFGUARD_STATS_RETENTION_DAYS || 30);
  const r = await getDb().execute(sql`delete from device_stats where collected_at < now() - make_interval(days => ${days})`);
  return r.rowCount ?? 0;
}
