import "server-only";
import { and, asc, eq, inArray, ne, sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { deviceLocations, devices, locations, users } from "../db/schema";
import { badRequest, conflict, forbidden, notFound } from "../errors";
import { recordActivity, type Actor } from "../activity/service";
import { transaction, type Emit } from "../events";
import { formatIp, parseIp } from "../net/ip";
import { firstFree } from "../wireguard/ip";
import { endpointHost, formatEndpoint, renderClientConfig } from "../wireguard/config";
import { locationCidrs, type LocationRow } from "../locations/service";
import { readEnterpriseSettings, type EnterpriseSettings } from "../settings/service";
import { clientAllowedIps, type ClientTrafficPolicy } from "../wireguard/traffic-policy";
import type { DeviceInput } from "./schema";
import { deviceJson, type Device } from "./shape";

export const MSG = {
  nameTaken: "Device with this name already exists",
  keyTaken: "key is already in use by another device",
  notFound: "device not found",
  locationFull: "location has no free address left",
  adminOnly: "only admins can add, change or delete devices (enterprise setting admin_device_management)",
  clientOnly: "manual WireGuard configuration is disabled: add the device with the desktop client (enterprise setting only_client_activation)",
} as const;

type Caller = { userId: number; isAdmin: boolean };

/**
 * The enterprise device rules for a caller who is not an admin: with admin_device_management
 * only admins add, change or delete devices; with only_client_activation devices come only
 * through the desktop client (no manual add, change or config download). `what` says which
 * rules apply to the operation (defguard: deleting is blocked only by the first).
 */
export async function assertDeviceManagement(tx: Tx, caller: Caller, what: { admin?: boolean; client?: boolean }): Promise<EnterpriseSettings> {
  const s = await readEnterpriseSettings(tx);
  if (!caller.isAdmin) {
    if (what.admin && s.admin_device_management) throw forbidden(MSG.adminOnly);
    if (what.client && s.only_client_activation) throw forbidden(MSG.clientOnly);
  }
  return s;
}

/** The client traffic policy that generated configs follow. */
export async function clientTrafficPolicy(tx: Tx = getDb()): Promise<ClientTrafficPolicy> {
  return (await readEnterpriseSettings(tx)).client_traffic_policy;
}

export type DeviceRow = typeof devices.$inferSelect;
export type { Device };

/** The Device (docs/api.md) of one device, read with the shared SQL fragment. */
export async function deviceById(tx: Tx, id: number): Promise<Device> {
  const r = await tx.execute<{ device: Device }>(sql`select ${deviceJson} device from devices d where d.id = ${id}`);
  if (!r.rows.length) throw notFound(MSG.notFound);
  return r.rows[0].device;
}

/** docs/api.md DeviceConfig for one location, with the private key placeholder unless given. */
export function deviceConfig(
  loc: LocationRow,
  ips: string[],
  privateKey: string | null = null,
  presharedKey: string | null = null,
  policy: ClientTrafficPolicy = "none",
) {
  const allowed = clientAllowedIps(loc.allowedIps, loc.address, policy);
  return {
    network_id: loc.id,
    network_name: loc.name,
    config: renderClientConfig({
      privateKey,
      addresses: ips,
      dns: loc.dns,
      peer: {
        publicKey: loc.pubkey,
        presharedKey,
        allowedIps: allowed,
        endpoint: loc.endpoint,
        port: loc.port,
        keepalive: loc.keepaliveInterval,
      },
    }),
    address: ips,
    endpoint: formatEndpoint(loc.endpoint, loc.port),
    allowed_ips: allowed,
    pubkey: loc.pubkey,
    dns: loc.dns,
    keepalive_interval: loc.keepaliveInterval,
    location_mfa_mode: loc.mfaMode,
  };
}

async function assertUnique(tx: Tx, userId: number, type: string, name: string, pubkey: string, exceptId?: number) {
  const [byName] = await tx
    .select({ id: devices.id })
    .from(devices)
    .where(and(eq(devices.userId, userId), eq(devices.deviceType, type), eq(devices.name, name), exceptId ? ne(devices.id, exceptId) : undefined));
  if (byName) throw conflict(MSG.nameTaken, "name");
  const [byKey] = await tx
    .select({ id: devices.id })
    .from(devices)
    .where(and(eq(devices.wireguardPubkey, pubkey), exceptId ? ne(devices.id, exceptId) : undefined));
  if (byKey) throw conflict(MSG.keyTaken, "wireguard_pubkey");
  // A device key must never be a location's key either.
  const [byLoc] = await tx.select({ id: locations.id }).from(locations).where(eq(locations.pubkey, pubkey));
  if (byLoc) throw conflict(MSG.keyTaken, "wireguard_pubkey");
}

/** Locations a user's devices may use (allowed groups, none set = everybody). */
async function locationsForUser(tx: Tx, userId: number): Promise<LocationRow[]> {
  return tx
    .select()
    .from(locations)
    .where(
      sql`not exists (select 1 from location_allowed_groups lg where lg.location_id = ${locations.id})
       or exists (select 1 from location_allowed_groups lg join group_users gu on gu.group_id = lg.group_id
                  where lg.location_id = ${locations.id} and gu.user_id = ${userId})`,
    )
    .orderBy(asc(locations.id));
}

/** Addresses in use in a location (per family), the location's own included. */
async function usedAddresses(tx: Tx, loc: LocationRow): Promise<Set<bigint>[]> {
  const cidrs = locationCidrs(loc);
  const sets = cidrs.map((c) => new Set<bigint>([c.addr]));
  const rows = await tx.select({ ips: deviceLocations.ips }).from(deviceLocations).where(eq(deviceLocations.locationId, loc.id));
  for (const r of rows)
    for (const text of r.ips) {
      const ip = parseIp(text);
      if (!ip) continue;
      cidrs.forEach((c, i) => c.version === ip.version && sets[i].add(ip.value));
    }
  return sets;
}

/** Give a device the first free address of every CIDR of a location. */
export async function assignInLocation(tx: Tx, deviceId: number, loc: LocationRow): Promise<string[]> {
  // Serialise allocations per location so two requests never take the same address.
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${"location-ips:" + loc.id}))`);
  const cidrs = locationCidrs(loc);
  const used = await usedAddresses(tx, loc);
  const ips = cidrs.map((c, i) => {
    const ip = firstFree(c, used[i]);
    if (ip === null) throw badRequest(`${MSG.locationFull}: ${loc.name}`);
    return formatIp(ip, c.version);
  });
  await tx.insert(deviceLocations).values({ deviceId, locationId: loc.id, ips });
  return ips;
}

async function requireUserByName(tx: Tx, username: string) {
  const [u] = await tx.select().from(users).where(sql`lower(${users.username}) = lower(${username})`);
  if (!u) throw notFound("user not found");
  return u;
}

/**
 * A user device inside the caller's transaction: name and key checked, one address in every
 * location the owner may use, the activity entry (`activity` overrides the default
 * "device_added" entry, e.g. for enrolment) and the domain events. Returns the row and, per
 * location, the location and the addresses.
 */
export async function insertUserDevice(
  tx: Tx,
  emit: Emit,
  actor: Actor,
  owner: { id: number; username: string },
  input: DeviceInput,
  activity?: { event: "device_added" | "enrollment_device_added"; module?: "enrollment"; description: string },
) {
  await assertUnique(tx, owner.id, "user", input.name, input.wireguard_pubkey);
  const [d] = await tx
    .insert(devices)
    .values({ name: input.name, wireguardPubkey: input.wireguard_pubkey, userId: owner.id, description: input.description })
    .returning();
  const links: { loc: LocationRow; ips: string[] }[] = [];
  for (const loc of await locationsForUser(tx, owner.id)) {
    const ips = await assignInLocation(tx, d.id, loc);
    links.push({ loc, ips });
    emit({ type: "device.location.added", deviceId: d.id, locationId: loc.id });
  }
  await recordActivity(tx, actor, {
    event: activity?.event ?? "device_added",
    module: activity?.module,
    device: d.name,
    description: activity?.description ?? `Added device ${d.name} of ${owner.username}`,
  });
  emit({ type: "device.created", deviceId: d.id, userId: owner.id });
  return { row: d, links };
}

/**
 * POST /device/{username}: the device, with one config per location it may use. `caller` is the
 * signed-in user the enterprise device rules apply to; null for trusted internal callers.
 */
export async function createUserDevice(actor: Actor, username: string, input: DeviceInput, caller: Caller | null = null) {
  return transaction(async (tx, emit) => {
    const { client_traffic_policy: policy } = await assertDeviceManagement(tx, caller ?? { userId: 0, isAdmin: true }, { admin: true, client: true });
    const owner = await requireUserByName(tx, username);
    const { row, links } = await insertUserDevice(tx, emit, actor, owner, input);
    return { device: await deviceById(tx, row.id), configs: links.map((l) => deviceConfig(l.loc, l.ips, null, null, policy)) };
  });
}

export async function requireDevice(tx: Tx, id: number, type?: "user" | "network"): Promise<DeviceRow> {
  const [d] = await tx.select().from(devices).where(type ? and(eq(devices.id, id), eq(devices.deviceType, type)) : eq(devices.id, id));
  if (!d) throw notFound(MSG.notFound);
  return d;
}

/** Owners and admins may see and change a user device; others get 403 (404 hides nothing here). */
export function assertOwnerOrAdmin(d: DeviceRow, caller: { userId: number; isAdmin: boolean }) {
  if (!caller.isAdmin && d.userId !== caller.userId) throw forbidden("access denied");
}

/**
 * GET /device: every user device (admins), as JSON text built by PostgreSQL in one query —
 * 10,000 devices without per-row work in Node, with the shared deviceJson fragment. The body is cached with
 * the devices list version (list_versions, bumped by a statement trigger on devices), so an
 * unchanged list costs one lookup and a change from any console process shows at once.
 */
export async function listDevicesJson(): Promise<Buffer> {
  const db = getDb();
  if (devicesListCache) {
    const r = await db.execute<{ version: number }>(sql`select version from list_versions where name = 'devices'`);
    if (r.rows[0]?.version === devicesListCache.version) return devicesListCache.body;
  }
  const r = await db.execute<{ body: string; version: number | null }>(sql`
    select (select version from list_versions where name = 'devices') version,
      coalesce(json_agg(${deviceJson} order by d.id), '[]')::text body
    from devices d where d.device_type = 'user'`);
  const body = Buffer.from(r.rows[0].body, "utf8");
  devicesListCache = r.rows[0].version === null ? null : { version: r.rows[0].version, body };
  return body;
}

let devicesListCache: { version: number; body: Buffer } | null = null;

export async function getDevice(id: number, caller: { userId: number; isAdmin: boolean }) {
  const db = getDb();
  const d = await requireDevice(db, id, "user");
  assertOwnerOrAdmin(d, caller);
  return deviceById(db, d.id);
}

export async function updateDevice(actor: Actor, id: number, caller: { userId: number; isAdmin: boolean }, input: DeviceInput) {
  return transaction(async (tx, emit) => {
    const d = await requireDevice(tx, id, "user");
    assertOwnerOrAdmin(d, caller);
    await assertDeviceManagement(tx, caller, { admin: true, client: true });
    await assertUnique(tx, d.userId, "user", input.name, input.wireguard_pubkey, d.id);
    const [u] = await tx
      .update(devices)
      .set({ name: input.name, wireguardPubkey: input.wireguard_pubkey, description: input.description })
      .where(eq(devices.id, id))
      .returning();
    await recordActivity(tx, actor, { event: "device_modified", device: u.name, description: `Modified device ${d.name}` });
    if (d.wireguardPubkey !== u.wireguardPubkey) {
      const locs = await tx.select({ id: deviceLocations.locationId }).from(deviceLocations).where(eq(deviceLocations.deviceId, id));
      emit({ type: "device.deleted", deviceId: id, pubkey: d.wireguardPubkey, locationIds: locs.map((l) => l.id) });
      for (const l of locs) emit({ type: "device.location.added", deviceId: id, locationId: l.id });
    } else emit({ type: "device.modified", deviceId: id });
    return deviceById(tx, u.id);
  });
}

export async function deleteDeviceRow(tx: Tx, emit: Emit, actor: Actor, d: DeviceRow) {
  const locs = await tx.select({ id: deviceLocations.locationId }).from(deviceLocations).where(eq(deviceLocations.deviceId, d.id));
  await tx.delete(devices).where(eq(devices.id, d.id));
  await recordActivity(tx, actor, {
    event: d.deviceType === "network" ? "network_device_removed" : "device_removed",
    device: d.name,
    description: `Removed device ${d.name}`,
  });
  emit({ type: "device.deleted", deviceId: d.id, pubkey: d.wireguardPubkey, locationIds: locs.map((l) => l.id) });
}

export async function deleteDevice(actor: Actor, id: number, caller: { userId: number; isAdmin: boolean }) {
  await transaction(async (tx, emit) => {
    const d = await requireDevice(tx, id, "user");
    assertOwnerOrAdmin(d, caller);
    await assertDeviceManagement(tx, caller, { admin: true });
    await deleteDeviceRow(tx, emit, actor, d);
  });
}

/** UserDevice of docs/api.md: a Device (shared fragment) with its per-location addresses. */
export async function listUserDevices(userId: number, tx: Tx = getDb()) {
  const rows = (
    await tx.execute<{ device: Device }>(
      sql`select ${deviceJson} device from devices d where d.user_id = ${userId} and d.device_type = 'user' order by d.id`,
    )
  ).rows.map((r) => r.device);
  if (!rows.length) return [];
  const links = await tx
    .select({
      deviceId: deviceLocations.deviceId,
      ips: deviceLocations.ips,
      loc: locations,
      endpoint: deviceLocations.lastEndpoint,
      handshake: deviceLocations.lastHandshake,
      connected: deviceLocations.connected,
    })
    .from(deviceLocations)
    .innerJoin(locations, eq(locations.id, deviceLocations.locationId))
    .where(inArray(deviceLocations.deviceId, rows.map((r) => r.id)))
    .orderBy(asc(locations.name));
  return rows.map((d) => ({
    ...d,
    networks: links
      .filter((l) => l.deviceId === d.id)
      .map((l) => ({
        network_id: l.loc.id,
        network_name: l.loc.name,
        network_gateway_ip: l.loc.address[0]?.split("/")[0] ?? null,
        device_wireguard_ips: l.ips,
        last_connected_ip: l.endpoint ? endpointHost(l.endpoint) : null,
        last_connected_location: l.handshake ? l.loc.name : null,
        last_connected_at: l.handshake?.toISOString() ?? null,
        is_active: l.connected,
      })),
  }));
}

/** GET /network/{network_id}/device/{device_id}/config: the wg-quick text (placeholder key). */
export async function deviceConfigText(locationId: number, deviceId: number, caller: { userId: number; isAdmin: boolean }) {
  const db = getDb();
  const d = await requireDevice(db, deviceId);
  assertOwnerOrAdmin(d, caller);
  const { client_traffic_policy: policy } = await assertDeviceManagement(db, caller, { client: true });
  const [row] = await db
    .select({ ips: deviceLocations.ips, loc: locations })
    .from(deviceLocations)
    .innerJoin(locations, eq(locations.id, deviceLocations.locationId))
    .where(and(eq(deviceLocations.deviceId, deviceId), eq(deviceLocations.locationId, locationId)));
  if (!row) throw notFound("device has no address in this location");
  return { device: d, config: deviceConfig(row.loc, row.ips, null, null, policy) };
}
