import "server-only";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { deviceLocations, devices, gateways, groups, locationGroups, locations } from "../db/schema";
import { badRequest, conflict, notFound } from "../errors";
import { decryptSecret, encryptSecret } from "../crypto";
import { recordActivity, type Actor } from "../activity/service";
import { transaction, type Emit } from "../events";
import {
  containsIp,
  formatIp,
  parseCidr,
  parseIp,
  type Cidr,
} from "../net/ip";
import { allocateMany, capacity, isAssignable } from "../wireguard/ip";
import { generateKeyPair, publicKeyFromPrivate } from "../wireguard/keys";
import type { LocationInput } from "./schema";

export type LocationRow = typeof locations.$inferSelect;

export const MSG = {
  nameTaken: "name is already taken",
  notFound: "location not found",
} as const;

/** docs/api.md location response (the private key is never part of it). */
export interface GatewayInfo {
  uid: string;
  hostname: string;
  connected: boolean;
  connected_at: string | null;
  disconnected_at: string | null;
  [k: string]: unknown;
}

function toLocationResponse(l: LocationRow, allowedGroups: string[], gws: GatewayInfo[] = []) {
  return {
    id: l.id,
    name: l.name,
    address: l.address,
    port: l.port,
    endpoint: l.endpoint,
    allowed_ips: l.allowedIps,
    dns: l.dns,
    allowed_groups: allowedGroups,
    keepalive_interval: l.keepaliveInterval,
    peer_disconnect_threshold: l.peerDisconnectThreshold,
    acl_enabled: l.aclEnabled,
    acl_default_allow: l.aclDefaultAllow,
    location_mfa_mode: l.mfaMode,
    mfa_enabled: l.mfaMode !== "disabled",
    pubkey: l.pubkey,
    connected: gws.some((g) => g.connected),
    connected_at: gws.filter((g) => g.connected).map((g) => g.connected_at).sort()[0] ?? null,
    gateways: gws,
  };
}

async function allowedGroupNames(tx: Tx, locationIds: number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  if (!locationIds.length) return out;
  const rows = await tx
    .select({ locationId: locationGroups.locationId, name: groups.name })
    .from(locationGroups)
    .innerJoin(groups, eq(groups.id, locationGroups.groupId))
    .where(inArray(locationGroups.locationId, locationIds))
    .orderBy(asc(groups.name));
  for (const r of rows) out.set(r.locationId, [...(out.get(r.locationId) ?? []), r.name]);
  return out;
}

async function gatewayInfo(tx: Tx, locationIds: number[]): Promise<Map<number, GatewayInfo[]>> {
  const out = new Map<number, GatewayInfo[]>();
  if (!locationIds.length) return out;
  const rows = await tx.select().from(gateways).where(inArray(gateways.locationId, locationIds)).orderBy(asc(gateways.hostname));
  for (const g of rows) {
    out.set(g.locationId, [
      ...(out.get(g.locationId) ?? []),
      {
        uid: String(g.id),
        id: g.id,
        name: g.name,
        hostname: g.hostname,
        version: g.version,
        connected: g.connected,
        connected_at: g.connectedAt?.toISOString() ?? null,
        disconnected_at: g.disconnectedAt?.toISOString() ?? null,
        network_id: g.locationId,
      },
    ]);
  }
  return out;
}

/**
 * The Location responses (docs/api.md) of the given locations, or of all of them, sorted by
 * name: the one producer of the shape. The list, the single read and the create and update
 * answers all come from here (lib/locations/shape.test.ts compares them).
 */
export async function locationResponses(tx: Tx, ids?: number[]) {
  if (ids && !ids.length) return [];
  const rows = await tx
    .select()
    .from(locations)
    .where(ids ? inArray(locations.id, ids) : undefined)
    .orderBy(asc(locations.name));
  const found = rows.map((r) => r.id);
  const [names, gws] = await Promise.all([allowedGroupNames(tx, found), gatewayInfo(tx, found)]);
  return rows.map((r) => toLocationResponse(r, names.get(r.id) ?? [], (gws.get(r.id) ?? []).map((g) => ({ ...g, network_name: r.name }))));
}

async function locationResponse(tx: Tx, id: number) {
  const [l] = await locationResponses(tx, [id]);
  if (!l) throw notFound(MSG.notFound);
  return l;
}

export async function listLocations() {
  return locationResponses(getDb());
}

export async function requireLocation(tx: Tx, id: number): Promise<LocationRow> {
  const [l] = await tx.select().from(locations).where(eq(locations.id, id));
  if (!l) throw notFound(MSG.notFound);
  return l;
}

export async function getLocation(id: number) {
  return locationResponse(getDb(), id);
}

/** The location's private key, for its gateway only. */
export function locationPrivateKey(l: LocationRow): string {
  return decryptSecret(l.prvkeyEnc);
}

export function locationCidrs(l: Pick<LocationRow, "address">): Cidr[] {
  return l.address.map((a) => {
    const c = parseCidr(a);
    if (!c) throw new Error(`stored location address is invalid: ${a}`);
    return c;
  });
}

async function groupIds(tx: Tx, names: string[]): Promise<number[]> {
  const unique = [...new Set(names)];
  if (!unique.length) return [];
  const rows = await tx.select().from(groups).where(inArray(groups.name, unique));
  const missing = unique.filter((n) => !rows.some((r) => r.name === n));
  if (missing.length) throw badRequest(`group not found: ${missing.join(", ")}`, "allowed_groups");
  return rows.map((r) => r.id);
}

/** User devices whose owner may use the location (member of an allowed group, or no groups set). */
async function eligibleUserDeviceIds(tx: Tx, locationId: number): Promise<number[]> {
  const r = await tx.execute<{ id: number }>(sql`
    select d.id from devices d
    where d.device_type = 'user' and (
      not exists (select 1 from location_allowed_groups lg where lg.location_id = ${locationId})
      or exists (select 1 from location_allowed_groups lg join group_users gu on gu.group_id = lg.group_id
                 where lg.location_id = ${locationId} and gu.user_id = d.user_id))`);
  return r.rows.map((x) => Number(x.id));
}

export interface ReconcileResult {
  added: number[];
  removed: number[];
  /** Devices whose addresses changed. */
  modified: number[];
}

/**
 * Bring a location's device addresses in line with its allowed groups and CIDRs: devices that
 * may no longer use it lose their addresses, new ones get the first free addresses, and an
 * address that still fits is kept (only what no longer fits is re-assigned). Network devices
 * keep their rows. Throws 400 when the location is too small, saying how many devices fit.
 */
export async function reconcileLocation(tx: Tx, loc: LocationRow): Promise<ReconcileResult> {
  // The same lock as single-device allocation: no two writers hand out one address.
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${"location-ips:" + loc.id}))`);
  const cidrs = locationCidrs(loc);
  const rows = await tx
    .select({ deviceId: deviceLocations.deviceId, ips: deviceLocations.ips, type: devices.deviceType })
    .from(deviceLocations)
    .innerJoin(devices, eq(devices.id, deviceLocations.deviceId))
    .where(eq(deviceLocations.locationId, loc.id));
  const eligible = new Set(await eligibleUserDeviceIds(tx, loc.id));

  const removed = rows.filter((r) => r.type === "user" && !eligible.has(r.deviceId)).map((r) => r.deviceId);
  const kept = rows.filter((r) => r.type !== "user" || eligible.has(r.deviceId));
  const present = new Set(rows.map((r) => r.deviceId));
  const added = [...eligible].filter((id) => !present.has(id)).sort((a, b) => a - b);

  // Per CIDR: the addresses kept rows can hold on to, and what must be allocated.
  const used = cidrs.map((c) => new Set<bigint>([c.addr]));
  const next: Map<number, (string | null)[]> = new Map();
  for (const r of kept) {
    const slots = cidrs.map((c, i) => {
      for (const text of r.ips) {
        const ip = parseIp(text);
        if (ip && ip.version === c.version && containsIp(c, ip.value, ip.version) && isAssignable(c, ip.value) && !used[i].has(ip.value)) {
          used[i].add(ip.value);
          return formatIp(ip.value, ip.version);
        }
      }
      return null;
    });
    next.set(r.deviceId, slots);
  }
  for (const id of added) next.set(id, cidrs.map(() => null));

  for (let i = 0; i < cidrs.length; i++) {
    const needing = [...next.entries()].filter(([, s]) => s[i] === null);
    if (!needing.length) continue;
    const fresh = allocateMany(cidrs[i], used[i], needing.length);
    if (fresh.length < needing.length) {
      const fits = Number(capacity(cidrs[i]));
      throw badRequest(
        `location ${loc.address[i]} is too small: ${next.size} devices need an address, ${fits} fit`,
        "address",
      );
    }
    needing.forEach(([, slots], k) => (slots[i] = formatIp(fresh[k], cidrs[i].version)));
  }

  const modified = kept.filter((r) => (next.get(r.deviceId) as string[]).join(",") !== r.ips.join(",")).map((r) => r.deviceId);
  // One statement per 1,000 changed devices (addresses as a JSON array per device).
  for (let k = 0; k < modified.length; k += 1000) {
    const chunk = modified.slice(k, k + 1000);
    await tx.execute(sql`
      update device_locations dl set ips = array(select jsonb_array_elements_text(v.ips))
      from jsonb_to_recordset(${JSON.stringify(chunk.map((id) => ({ id, ips: next.get(id) })))}::jsonb) as v(id int, ips jsonb)
      where dl.device_id = v.id and dl.location_id = ${loc.id}`);
  }
  if (removed.length) {
    await tx.delete(deviceLocations).where(and(eq(deviceLocations.locationId, loc.id), inArray(deviceLocations.deviceId, removed)));
  }
  for (let k = 0; k < added.length; k += 1000) {
    const chunk = added.slice(k, k + 1000);
    await tx.insert(deviceLocations).values(chunk.map((deviceId) => ({ deviceId, locationId: loc.id, ips: next.get(deviceId) as string[] })));
  }
  return { added, removed, modified };
}

/** Reconcile every location a user's group change may affect. */
export async function reconcileAllLocations(tx: Tx): Promise<void> {
  const all = await tx.select().from(locations);
  for (const l of all) await reconcileLocation(tx, l);
}

function emitChanges(emit: Emit, locationId: number, r: ReconcileResult) {
  for (const id of r.added) emit({ type: "device.location.added", deviceId: id, locationId });
  for (const id of r.removed) emit({ type: "device.location.removed", deviceId: id, locationId });
  for (const id of r.modified) emit({ type: "device.location.modified", deviceId: id, locationId });
}

async function assertNameFree(tx: Tx, name: string, exceptId?: number) {
  const [l] = await tx.select({ id: locations.id }).from(locations).where(eq(locations.name, name));
  if (l && l.id !== exceptId) throw conflict(MSG.nameTaken, "name");
}

export async function createLocation(actor: Actor, input: LocationInput, privateKey?: string) {
  return transaction(async (tx, emit) => {
    await assertNameFree(tx, input.name);
    const gids = await groupIds(tx, input.allowed_groups);
    const keys = privateKey ? { privateKey, publicKey: publicKeyFromPrivate(privateKey) } : generateKeyPair();
    const [l] = await tx
      .insert(locations)
      .values({
        name: input.name,
        address: input.address,
        port: input.port,
        endpoint: input.endpoint,
        allowedIps: input.allowed_ips,
        dns: input.dns,
        pubkey: keys.publicKey,
        prvkeyEnc: encryptSecret(keys.privateKey),
        keepaliveInterval: input.keepalive_interval,
        peerDisconnectThreshold: input.peer_disconnect_threshold,
        aclEnabled: input.acl_enabled,
        aclDefaultAllow: input.acl_default_allow,
        mfaMode: input.location_mfa_mode,
      })
      .returning();
    if (gids.length) await tx.insert(locationGroups).values(gids.map((groupId) => ({ locationId: l.id, groupId })));
    emitChanges(emit, l.id, await reconcileLocation(tx, l));
    await recordActivity(tx, actor, { event: "vpn_location_added", location: l.name, description: `Added location ${l.name}` });
    emit({ type: "location.changed", locationId: l.id });
    return locationResponse(tx, l.id);
  });
}

export async function updateLocation(actor: Actor, id: number, input: LocationInput) {
  return transaction(async (tx, emit) => {
    const before = await requireLocation(tx, id);
    await assertNameFree(tx, input.name, id);
    const gids = await groupIds(tx, input.allowed_groups);
    const [l] = await tx
      .update(locations)
      .set({
        name: input.name,
        address: input.address,
        port: input.port,
        endpoint: input.endpoint,
        allowedIps: input.allowed_ips,
        dns: input.dns,
        keepaliveInterval: input.keepalive_interval,
        peerDisconnectThreshold: input.peer_disconnect_threshold,
        aclEnabled: input.acl_enabled,
        aclDefaultAllow: input.acl_default_allow,
        mfaMode: input.location_mfa_mode,
      })
      .where(eq(locations.id, id))
      .returning();
    await tx.delete(locationGroups).where(eq(locationGroups.locationId, id));
    if (gids.length) await tx.insert(locationGroups).values(gids.map((groupId) => ({ locationId: id, groupId })));
    emitChanges(emit, id, await reconcileLocation(tx, l));
    await recordActivity(tx, actor, {
      event: "vpn_location_modified",
      location: l.name,
      description: before.name !== l.name ? `Modified location ${before.name} (now ${l.name})` : `Modified location ${l.name}`,
    });
    emit({ type: "location.changed", locationId: id });
    return locationResponse(tx, l.id);
  });
}

export async function deleteLocation(actor: Actor, id: number) {
  await transaction(async (tx, emit) => {
    const l = await requireLocation(tx, id);
    // Network devices exist only for their location: they go with it.
    await tx.execute(sql`delete from devices d where d.device_type = 'network'
      and exists (select 1 from device_locations dl where dl.device_id = d.id and dl.location_id = ${id})`);
    await tx.delete(locations).where(eq(locations.id, id));
    await recordActivity(tx, actor, { event: "vpn_location_removed", location: l.name, description: `Removed location ${l.name}` });
    emit({ type: "location.deleted", locationId: id });
  });
}
