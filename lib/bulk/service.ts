import "server-only";
import { sql, type SQL } from "drizzle-orm";
import { containsPattern } from "../db/like";
import type { Tx } from "../db";
import { AppError, badRequest } from "../errors";
import { recordActivities, type Actor, type ActivityInput } from "../activity/service";
import { transaction, type Batched, type DomainEvent, type Emit } from "../events";
import { formatIp, parseIp } from "../net/ip";
import { allocateMany } from "../wireguard/ip";
import { locationCidrs, reconcileLocation, requireLocation, type LocationRow } from "../locations/service";
import { assertAdminRemains, lockAdmins, userTableWhere } from "../users/service";
import { getSettings, smtpConfigured } from "../settings/service";
import { sendMail, SMTP_NOT_CONFIGURED, type Mail } from "../mail/service";
import { enrollmentAdmin, issueEnrollmentForBulk } from "../enrollment/service";
import { MSG as NETWORK_MSG } from "../devices/network";
import type { BulkResult, DeviceBulkFilter, DeviceBulkInput, UserBulkInput } from "./schema";

/**
 * Bulk actions (POST /user/bulk, POST /device/bulk). Each runs as one transaction: the objects
 * are resolved and locked first (ids that do not exist fail the whole action, naming them, and
 * nothing changes), every changed object gets its own activity-log entry, webhooks get their
 * per-user events, and the gateways get one `gateways.batch` event: one whole configuration per
 * affected location, instead of one update per object (lib/gateways/hub.ts).
 */

export const MSG = {
  unknownUsers: "users not found",
  unknownDevices: "devices not found",
  unknownGroups: "groups not found",
  enrolled: "these users already have a password (enrolment is for new accounts)",
  disabled: "these users are disabled",
  userDevicesMove: "user devices cannot be moved: they are in every location their owner may use",
} as const;

/** "a, b, c and 12 more": the first names of a list for a message. */
export function nameList(items: (string | number)[], max = 20): string {
  const shown = items.slice(0, max).join(", ");
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}

const intArray = (ids: number[]) => sql`${sql.param(ids)}::int[]`;

/** The events of a bulk action, marked as carried by its gateways.batch. */
function batched<E extends DomainEvent>(e: E): Batched<E> {
  return { ...e, batched: true };
}

/** One gateways.batch for the locations a bulk action touched (nothing when none). */
function emitBatch(emit: Emit, locations: Iterable<number>, objects: number) {
  const ids = [...new Set(locations)].sort((a, b) => a - b);
  if (ids.length && objects) emit({ type: "gateways.batch", locationIds: ids, objects });
}

// ------------------------------------------------------------------------------------ users

type UserTarget = {
  id: number;
  username: string;
  email: string;
  is_active: boolean;
  has_password: boolean;
};

/** The users an action names (ids, or the users list's filter), locked; unknown ids fail it all. */
async function resolveUsers(tx: Tx, input: UserBulkInput): Promise<UserTarget[]> {
  const cols = sql`v.id, v.username, v.email, v.is_active, v.password_hash is not null has_password`;
  let where: SQL;
  if (input.ids) {
    const ids = [...new Set(input.ids)];
    where = sql`v.id = any(${intArray(ids)})`;
    const r = await tx.execute<UserTarget>(sql`select ${cols} from users v where ${where} order by v.id for update`);
    if (r.rows.length !== ids.length) {
      const found = new Set(r.rows.map((u) => Number(u.id)));
      throw badRequest(`${MSG.unknownUsers}: ${nameList(ids.filter((id) => !found.has(id)))}`, "ids");
    }
    return r.rows.map((u) => ({ ...u, id: Number(u.id) }));
  }
  where = userTableWhere(input.filter ?? {});
  const r = await tx.execute<UserTarget>(sql`select ${cols} from users v where ${where} order by v.id for update`);
  return r.rows.map((u) => ({ ...u, id: Number(u.id) }));
}

/** Locations where these users' devices have addresses. */
async function locationsOfUsers(tx: Tx, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  const r = await tx.execute<{ id: number }>(sql`
    select distinct dl.location_id id from device_locations dl join devices d on d.id = dl.device_id where d.user_id = any(${intArray(ids)})`);
  return r.rows.map((x) => Number(x.id));
}

/** Reconcile every location with the groups as they are now; the ids of those that changed. */
async function reconcileAll(tx: Tx): Promise<number[]> {
  const all = await tx.execute<{ id: number }>(sql`select id from locations order by id`);
  const changed: number[] = [];
  for (const { id } of all.rows) {
    const loc = await requireLocation(tx, Number(id));
    const r = await reconcileLocation(tx, loc);
    if (r.added.length || r.removed.length || r.modified.length) changed.push(loc.id);
  }
  return changed;
}

async function requireGroups(tx: Tx, names: string[]): Promise<{ id: number; name: string }[]> {
  const wanted = [...new Set(names)];
  const r = await tx.execute<{ id: number; name: string }>(sql`select id, name from groups where name = any(${sql.param(wanted)}::text[]) order by name`);
  const missing = wanted.filter((n) => !r.rows.some((g) => g.name === n));
  if (missing.length) throw badRequest(`${MSG.unknownGroups}: ${nameList(missing)}`, "groups");
  return r.rows.map((g) => ({ id: Number(g.id), name: g.name }));
}

/**
 * POST /user/bulk: disable, enable, add to or remove from groups, delete, or start enrolment
 * (the enrolment link e-mailed to each user's own address) for many users at once. The last
 * active admin stays: an action that would leave none fails as a whole.
 */
export async function bulkUsers(actor: Actor, input: UserBulkInput): Promise<BulkResult> {
  const settings = input.action === "start_enrollment" ? await getSettings() : null;
  if (settings && !smtpConfigured(settings)) throw badRequest(SMTP_NOT_CONFIGURED);
  const mails: Mail[] = [];
  const result = await transaction(async (tx, emit) => {
    await lockAdmins(tx);
    const targets = await resolveUsers(tx, input);
    const ids = targets.map((u) => u.id);
    const touched = new Set(await locationsOfUsers(tx, ids));
    const log: ActivityInput[] = [];
    let changed: UserTarget[] = [];

    switch (input.action) {
      case "disable":
      case "enable": {
        const active = input.action === "enable";
        changed = targets.filter((u) => u.is_active !== active);
        const cids = changed.map((u) => u.id);
        if (cids.length) {
          await tx.execute(sql`update users set is_active = ${active} where id = any(${intArray(cids)})`);
          if (!active) await tx.execute(sql`delete from sessions where user_id = any(${intArray(cids)})`);
        }
        for (const u of changed) {
          log.push({ event: active ? "user_enabled" : "user_disabled", description: `${active ? "Enabled" : "Disabled"} user ${u.username}` });
          emit(batched({ type: active ? "user.enabled" : "user.disabled", userId: u.id, username: u.username }));
        }
        break;
      }
      case "add_to_groups":
      case "remove_from_groups": {
        const gs = await requireGroups(tx, input.groups!);
        const gids = gs.map((g) => g.id);
        const adding = input.action === "add_to_groups";
        const r = adding
          ? await tx.execute<{ user_id: number; group_id: number }>(sql`
              insert into group_users (group_id, user_id)
              select g, u from unnest(${intArray(gids)}) g cross join unnest(${intArray(ids)}) u
              on conflict do nothing returning user_id, group_id`)
          : await tx.execute<{ user_id: number; group_id: number }>(sql`
              delete from group_users where group_id = any(${intArray(gids)}) and user_id = any(${intArray(ids)}) returning user_id, group_id`);
        const perUser = new Map<number, Set<string>>();
        for (const row of r.rows) {
          const name = gs.find((g) => g.id === Number(row.group_id))!.name;
          const set = perUser.get(Number(row.user_id)) ?? new Set<string>();
          set.add(name);
          perUser.set(Number(row.user_id), set);
        }
        changed = targets.filter((u) => perUser.has(u.id));
        for (const u of changed) {
          const names = [...perUser.get(u.id)!].sort().join(", ");
          log.push({ event: "user_groups_modified", description: adding ? `Added ${u.username} to groups ${names}` : `Removed ${u.username} from groups ${names}` });
          emit(batched({ type: "user.modified", userId: u.id, username: u.username }));
        }
        if (changed.length) {
          for (const g of gs) emit(batched({ type: "group.changed", groupId: g.id, name: g.name }));
          // Group membership decides which locations the users' devices may use.
          for (const id of await reconcileAll(tx)) touched.add(id);
          for (const id of await locationsOfUsers(tx, changed.map((u) => u.id))) touched.add(id);
        }
        break;
      }
      case "delete": {
        changed = targets;
        if (ids.length) await tx.execute(sql`delete from users where id = any(${intArray(ids)})`);
        for (const u of changed) {
          log.push({ event: "user_removed", description: `Removed user ${u.username}` });
          emit(batched({ type: "user.deleted", userId: u.id, username: u.username }));
        }
        break;
      }
      case "start_enrollment": {
        const off = targets.filter((u) => !u.is_active);
        if (off.length) throw badRequest(`${MSG.disabled}: ${nameList(off.map((u) => u.username))}`, "ids");
        const enrolled = targets.filter((u) => u.has_password);
        if (enrolled.length) throw badRequest(`${MSG.enrolled}: ${nameList(enrolled.map((u) => u.username))}`, "ids");
        const admin = await enrollmentAdmin(tx, actor);
        for (const u of targets) mails.push(await issueEnrollmentForBulk(tx, actor, u.id, settings!, admin));
        // The messages go last, still in the transaction: a failed send keeps no token.
        for (const m of mails) await sendMail(m);
        return { action: input.action, count: targets.length, changed: targets.length };
      }
    }
    await assertAdminRemains(tx);
    await recordActivities(tx, actor, log);
    emitBatch(emit, touched, changed.length);
    return { action: input.action, count: targets.length, changed: changed.length };
  });
  return result;
}

// ---------------------------------------------------------------------------------- devices

type DeviceTarget = {
  id: number;
  name: string;
  device_type: "user" | "network";
  configured: boolean;
  locations: number[];
};

/** Devices matching a list filter (kind, location, text in name, location, address, owner or description). */
function deviceFilterSql(f: DeviceBulkFilter): SQL {
  const where: SQL[] = [sql`true`];
  if (f.type && f.type !== "all") where.push(sql`d.device_type = ${f.type}`);
  if (f.location_id) where.push(sql`exists (select 1 from device_locations x where x.device_id = d.id and x.location_id = ${f.location_id})`);
  if (f.search) {
    const like = containsPattern(f.search);
    where.push(sql`(d.name ilike ${like} or coalesce(d.description, '') ilike ${like}
      or exists (select 1 from users o where o.id = d.user_id and o.username ilike ${like})
      or exists (select 1 from device_locations x join locations l on l.id = x.location_id
                 where x.device_id = d.id and (l.name ilike ${like} or array_to_string(x.ips, ' ') ilike ${like})))`);
  }
  return sql.join(where, sql` and `);
}

async function resolveDevices(tx: Tx, input: DeviceBulkInput): Promise<DeviceTarget[]> {
  const select = (where: SQL) => sql`
    select d.id, d.name, d.device_type, d.configured,
           coalesce((select array_agg(dl.location_id order by dl.location_id) from device_locations dl where dl.device_id = d.id), '{}') locations
      from devices d where ${where} order by d.id for update of d`;
  const norm = (rows: DeviceTarget[]) => rows.map((d) => ({ ...d, id: Number(d.id), locations: d.locations.map(Number) }));
  if (input.ids) {
    const ids = [...new Set(input.ids)];
    const r = await tx.execute<DeviceTarget>(select(sql`d.id = any(${intArray(ids)})`));
    if (r.rows.length !== ids.length) {
      const found = new Set(r.rows.map((d) => Number(d.id)));
      throw badRequest(`${MSG.unknownDevices}: ${nameList(ids.filter((id) => !found.has(id)))}`, "ids");
    }
    return norm(r.rows);
  }
  return norm((await tx.execute<DeviceTarget>(select(deviceFilterSql(input.filter ?? {})))).rows);
}

/**
 * Give network devices new addresses in a location (the first free ones of each of its
 * networks), replacing the addresses they had elsewhere; devices already there keep theirs.
 */
async function moveNetworkDevices(tx: Tx, devs: DeviceTarget[], loc: LocationRow): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${"location-ips:" + loc.id}))`);
  const cidrs = locationCidrs(loc);
  const used = cidrs.map((c) => new Set<bigint>([c.addr]));
  const taken = await tx.execute<{ ips: string[] }>(sql`select ips from device_locations where location_id = ${loc.id}`);
  for (const row of taken.rows)
    for (const text of row.ips) {
      const ip = parseIp(text);
      if (ip) cidrs.forEach((c, i) => c.version === ip.version && used[i].add(ip.value));
    }
  const fresh = cidrs.map((c, i) => allocateMany(c, used[i], devs.length));
  const short = cidrs.findIndex((_, i) => fresh[i].length < devs.length);
  if (short >= 0) throw badRequest(`${NETWORK_MSG.ipInUse}: location ${loc.name} (${loc.address[short]}) has ${fresh[short].length} free addresses, ${devs.length} needed`, "location_id");
  const ids = devs.map((d) => d.id);
  await tx.execute(sql`delete from device_locations where device_id = any(${intArray(ids)})`);
  for (let k = 0; k < devs.length; k += 1000) {
    const chunk = devs.slice(k, k + 1000).map((d, j) => ({ id: d.id, ips: cidrs.map((c, i) => formatIp(fresh[i][k + j], c.version)) }));
    await tx.execute(sql`
      insert into device_locations (device_id, location_id, ips)
      select v.id, ${loc.id}, array(select jsonb_array_elements_text(v.ips))
        from jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) as v(id int, ips jsonb)`);
  }
}

/**
 * POST /device/bulk: delete devices, move network devices to a location (new addresses there),
 * or regenerate configurations: every location the devices are in (or, for user devices, may
 * use) is reconciled with its current networks and groups, so an address that no longer fits
 * is replaced and a missing one assigned, and its gateways get the whole configuration again.
 */
export async function bulkDevices(actor: Actor, input: DeviceBulkInput): Promise<BulkResult> {
  return transaction(async (tx, emit) => {
    const targets = await resolveDevices(tx, input);
    const touched = new Set(targets.flatMap((d) => d.locations));
    const names = new Map<number, string>();
    const locName = async (id: number) => {
      if (!names.has(id)) names.set(id, (await requireLocation(tx, id)).name);
      return names.get(id)!;
    };
    const log: ActivityInput[] = [];
    let changed = targets;

    switch (input.action) {
      case "delete": {
        if (targets.length) await tx.execute(sql`delete from devices where id = any(${intArray(targets.map((d) => d.id))})`);
        for (const d of targets) {
          log.push({ event: d.device_type === "network" ? "network_device_removed" : "device_removed", device: d.name, description: `Removed device ${d.name}` });
        }
        break;
      }
      case "move": {
        const loc = await requireLocation(tx, input.location_id!).catch((err) => {
          throw err instanceof AppError && err.status === 404 ? badRequest("location not found", "location_id") : err;
        });
        if (loc.mfaMode !== "disabled") throw badRequest(NETWORK_MSG.mfaLocation, "location_id");
        const users = targets.filter((d) => d.device_type === "user");
        if (users.length) throw badRequest(`${MSG.userDevicesMove}: ${nameList(users.map((d) => d.name))}`, "ids");
        changed = targets.filter((d) => !(d.locations.length === 1 && d.locations[0] === loc.id));
        if (changed.length) await moveNetworkDevices(tx, changed, loc);
        names.set(loc.id, loc.name);
        for (const d of changed) {
          const from = d.locations.length ? await locName(d.locations[0]) : null;
          log.push({
            event: "network_device_moved",
            device: d.name,
            location: loc.name,
            description: from ? `Moved network device ${d.name} from ${from} to ${loc.name}` : `Moved network device ${d.name} to ${loc.name}`,
          });
        }
        if (changed.length) touched.add(loc.id);
        break;
      }
      case "regenerate_configs": {
        const all = await tx.execute<{ id: number }>(sql`select id from locations order by id`);
        for (const { id } of all.rows) {
          const loc = await requireLocation(tx, Number(id));
          const r = await reconcileLocation(tx, loc);
          if (r.added.length || r.removed.length || r.modified.length) touched.add(loc.id);
        }
        const after = targets.length
          ? await tx.execute<{ id: number }>(sql`select distinct location_id id from device_locations where device_id = any(${intArray(targets.map((d) => d.id))})`)
          : { rows: [] };
        for (const { id } of after.rows) touched.add(Number(id));
        for (const d of targets) log.push({ event: "device_config_regenerated", device: d.name, description: `Regenerated the configuration of device ${d.name}` });
        break;
      }
    }
    await recordActivities(tx, actor, log);
    emitBatch(emit, touched, changed.length);
    return { action: input.action, count: targets.length, changed: changed.length };
  });
}
