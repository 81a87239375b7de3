import "server-only";
import { sql } from "drizzle-orm";
import { getDb, getPool } from ".";
import { registerMetricsSources } from "../metrics";

/** The database-backed gauges of GET /metrics: cluster-wide counts and this process's pool. */
export function registerDbMetrics(): void {
  registerMetricsSources({
    async gatewaysPerLocation() {
      const r = await getDb().execute<{ location: string; connected: number }>(sql`
        select l.name location, count(g.id) filter (where g.connected)::int connected
          from locations l left join gateways g on g.location_id = l.id group by l.name`);
      return r.rows.map((x) => ({ location: x.location, connected: Number(x.connected) }));
    },
    async peersPerLocation() {
      const r = await getDb().execute<{ location: string; peers: number }>(sql`
        select l.name location, count(dl.device_id)::int peers
          from locations l left join device_locations dl on dl.location_id = l.id group by l.name`);
      return r.rows.map((x) => ({ location: x.location, peers: Number(x.peers) }));
    },
    pool() {
      if (!process.env.DATABASE_URL) return null;
      const p = getPool();
      return { total: p.totalCount, idle: p.idleCount, waiting: p.waitingCount, max: p.options.max ?? 10 };
    },
  });
}
