import "server-only";
import { sql } from "drizzle-orm";
import type { Tx } from "../db";
import type { DomainEvent } from "./index";

/**
 * Location revisions (docs/gateway-protocol.md, "Revisions"): every transaction whose events
 * produce a gateway update bumps the revision of each location concerned, in the same
 * transaction, and logs the revision's commit time. Revisions only grow; two transactions
 * touching one location serialise on its `location_sync` row (taken in location id order, so
 * they cannot deadlock), so revisions commit in order.
 *
 * Locations concerned: the event's own; for user and group changes (which decide firewall rule
 * sources) every location with ACL on; for a user being disabled or enabled also the locations of
 * the user's devices. Returns {location id: new revision}, or null when no location is concerned.
 */
export async function bumpRevisions(tx: Tx, events: DomainEvent[]): Promise<Record<string, number> | null> {
  const ids = new Set<number>();
  const users = new Set<number>();
  let aclLocations = false;
  for (const e of events) {
    switch (e.type) {
      case "device.location.added":
      case "device.location.removed":
      case "device.location.modified":
      case "device.location.authorized":
      case "device.location.deauthorized":
      case "location.changed":
      case "gateway.reconcile":
        ids.add(e.locationId);
        break;
      case "device.deleted":
        if (e.pubkey) for (const l of e.locationIds) ids.add(l);
        break;
      case "gateways.batch":
        for (const l of e.locationIds) ids.add(l);
        break;
      case "user.disabled":
      case "user.enabled":
        users.add(e.userId);
        aclLocations = true;
        break;
      case "user.modified":
      case "user.deleted":
      case "group.changed":
        aclLocations = true;
        break;
      case "acl.changed":
        if (e.locationIds === "all") aclLocations = true;
        else for (const l of e.locationIds) ids.add(l);
        break;
      default:
        break;
    }
  }
  if (!ids.size && !users.size && !aclLocations) return null;
  const idList = `{${[...ids].join(",")}}`;
  const userList = `{${[...users].join(",")}}`;
  const r = await tx.execute<{ location_id: number; revision: string | number }>(sql`
    with targets as (
      select unnest(${idList}::int[]) id
      union select id from locations where ${aclLocations} and acl_enabled
      union select dl.location_id from device_locations dl join devices d on d.id = dl.device_id where d.user_id = any(${userList}::int[])
    ), bumped as (
      insert into location_sync (location_id, revision)
      select l.id, 1 from targets t join locations l on l.id = t.id order by l.id
      on conflict (location_id) do update set revision = location_sync.revision + 1
      returning location_id, revision
    ), logged as (
      insert into location_revision_log (location_id, revision, committed_at)
      select location_id, revision, clock_timestamp() from bumped
    )
    select location_id, revision from bumped`);
  if (!r.rows.length) return null;
  const out: Record<string, number> = {};
  for (const row of r.rows) out[String(row.location_id)] = Number(row.revision);
  return out;
}
