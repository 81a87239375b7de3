import "server-only";
import { and, asc, eq, inArray, isNull, ne } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { deviceLocations, devices, enrollmentTokens, locations, users } from "../db/schema";
import { badRequest, conflict, notFound } from "../errors";
import { recordActivity, type Actor } from "../activity/service";
import { transaction, type Emit } from "../events";
import { containsIp, formatCidr, formatIp, parseIp } from "../net/ip";
import { firstFree, isAssignable, splitIp } from "../wireguard/ip";
import { locationCidrs, requireLocation, type LocationRow } from "../locations/service";
import { clientTrafficPolicy, deleteDeviceRow, deviceConfig, requireDevice } from "./service";
import type { NetworkDeviceCliInput, NetworkDeviceInput, NetworkDeviceUpdateInput } from "./schema";

export const MSG = {
  mfaLocation: "network devices can only be added to locations without MFA",
  ipInvalid: "IP is invalid",
  ipInUse: "IP is already in use",
  nameTaken: "Device with this name already exists",
  keyTaken: "key is already in use by another device",
} as const;

type Row = typeof devices.$inferSelect;

async function view(tx: Tx, rows: Row[]) {
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const links = await tx
    .select({ deviceId: deviceLocations.deviceId, ips: deviceLocations.ips, locId: locations.id, locName: locations.name })
    .from(deviceLocations)
    .innerJoin(locations, eq(locations.id, deviceLocations.locationId))
    .where(inArray(deviceLocations.deviceId, ids));
  const owners = await tx
    .select({ id: users.id, username: users.username })
    .from(users)
    .where(inArray(users.id, [...new Set(rows.map((r) => r.userId))]));
  return rows.map((d) => {
    const l = links.find((x) => x.deviceId === d.id);
    return {
      id: d.id,
      name: d.name,
      description: d.description,
      wireguard_pubkey: d.wireguardPubkey,
      assigned_ips: l?.ips ?? [],
      location: l ? { id: l.locId, name: l.locName } : null,
      added_by: owners.find((o) => o.id === d.userId)?.username ?? null,
      added_date: d.createdAt.toISOString(),
      configured: d.configured,
    };
  });
}

export async function listNetworkDevices() {
  const db = getDb();
  return view(db, await db.select().from(devices).where(eq(devices.deviceType, "network")).orderBy(asc(devices.name)));
}

export async function getNetworkDevice(id: number) {
  const db = getDb();
  return (await view(db, [await requireDevice(db, id, "network")]))[0];
}

/** Taken addresses of a location, optionally ignoring one device (when it is being edited). */
async function takenIps(tx: Tx, locationId: number, exceptDeviceId?: number): Promise<Set<string>> {
  const rows = await tx
    .select({ ips: deviceLocations.ips })
    .from(deviceLocations)
    .where(and(eq(deviceLocations.locationId, locationId), exceptDeviceId ? ne(deviceLocations.deviceId, exceptDeviceId) : undefined));
  const out = new Set<string>();
  for (const r of rows) for (const ip of r.ips) out.add(ip);
  return out;
}

export interface IpCheck {
  ip: string;
  valid: boolean;
  available: boolean;
}

/** Validate requested addresses: each must be a device address of a distinct location CIDR and free. */
export async function checkIps(tx: Tx, loc: LocationRow, ips: string[], exceptDeviceId?: number): Promise<IpCheck[]> {
  const cidrs = locationCidrs(loc);
  const taken = await takenIps(tx, loc.id, exceptDeviceId);
  const usedCidr = new Set<number>();
  return ips.map((text) => {
    const ip = parseIp(text);
    const idx = ip ? cidrs.findIndex((c) => c.version === ip.version && containsIp(c, ip.value, ip.version)) : -1;
    const valid = ip !== null && idx >= 0 && isAssignable(cidrs[idx], ip.value) && !usedCidr.has(idx);
    if (valid) usedCidr.add(idx);
    const canonical = ip ? formatIp(ip.value, ip.version) : text;
    return { ip: canonical, valid, available: valid && !taken.has(canonical) };
  });
}

/**
 * GET /device/network/ip/{locationId} (defguard's shape): for each address of the location the
 * next free device address, split into its fixed and editable parts; 404 when any is full.
 */
export async function nextFreeIps(locationId: number) {
  const db = getDb();
  const loc = await requireLocation(db, locationId);
  const cidrs = locationCidrs(loc);
  const taken = await takenIps(db, loc.id);
  const out = [];
  for (const c of cidrs) {
    const used = new Set<bigint>([c.addr]);
    for (const t of taken) {
      const ip = parseIp(t);
      if (ip && ip.version === c.version) used.add(ip.value);
    }
    const ip = firstFree(c, used);
    if (ip === null) throw notFound(`no free address left in ${formatCidr(c)} of location ${loc.name}`);
    out.push(splitIp(ip, c));
  }
  return out;
}

/**
 * POST /device/network/ip/{locationId} {ips}: defguard's check, one `{available, valid}` per
 * address in order. Not an address or outside the location: invalid. The network, broadcast
 * or gateway address, or one in use (other than by `deviceId`): valid but not available.
 */
export async function validateIps(locationId: number, ips: string[], deviceId?: number) {
  const db = getDb();
  const loc = await requireLocation(db, locationId);
  const cidrs = locationCidrs(loc);
  const taken = await takenIps(db, loc.id, deviceId);
  return ips.map((text) => {
    const ip = parseIp(text);
    const cidr = ip ? cidrs.find((c) => containsIp(c, ip.value, ip.version)) : undefined;
    if (!ip || !cidr) return { available: false, valid: false };
    const available = isAssignable(cidr, ip.value) && !taken.has(formatIp(ip.value, ip.version));
    return { available, valid: true };
  });
}

/** A key no other device and no location uses (409 otherwise). */
export async function assertKeyFree(tx: Tx, pubkey: string, exceptId?: number, field = "wireguard_pubkey") {
  const [byKey] = await tx
    .select({ id: devices.id })
    .from(devices)
    .where(and(eq(devices.wireguardPubkey, pubkey), exceptId ? ne(devices.id, exceptId) : undefined));
  if (byKey) throw conflict(MSG.keyTaken, field);
  const [byLoc] = await tx.select({ id: locations.id }).from(locations).where(eq(locations.pubkey, pubkey));
  if (byLoc) throw conflict(MSG.keyTaken, field);
}

/** Name unique among network devices; the key (when there is one yet) free. */
async function assertUnique(tx: Tx, name: string, pubkey: string | null, exceptId?: number) {
  const [byName] = await tx
    .select({ id: devices.id })
    .from(devices)
    .where(and(eq(devices.deviceType, "network"), eq(devices.name, name), exceptId ? ne(devices.id, exceptId) : undefined));
  if (byName) throw conflict(MSG.nameTaken, "name");
  if (pubkey !== null) await assertKeyFree(tx, pubkey, exceptId);
}

async function resolveIps(tx: Tx, loc: LocationRow, wanted: string[], exceptId?: number): Promise<string[]> {
  const checks = await checkIps(tx, loc, wanted, exceptId);
  const bad = checks.find((c) => !c.valid);
  if (bad) throw badRequest(`${MSG.ipInvalid}: ${bad.ip}`, "assigned_ips");
  const busy = checks.find((c) => !c.available);
  if (busy) throw conflict(`${MSG.ipInUse}: ${busy.ip}`, "assigned_ips");
  return checks.map((c) => c.ip);
}

/**
 * Validate and write a new network device with its addresses, in the caller's transaction. With
 * no key (null) the device waits for the defguard CLI: configured = false, its addresses are
 * reserved, and gateways hear of it only once the CLI has sent its key.
 */
export async function insertNetworkDevice(tx: Tx, emit: Emit, actor: Actor, input: NetworkDeviceCliInput, pubkey: string | null) {
  const loc = await requireLocation(tx, input.location_id);
  if (loc.mfaMode !== "disabled") throw badRequest(MSG.mfaLocation, "location_id");
  await assertUnique(tx, input.name, pubkey);
  const ips = await resolveIps(tx, loc, input.assigned_ips);
  const [d] = await tx
    .insert(devices)
    .values({
      name: input.name,
      wireguardPubkey: pubkey,
      userId: actor.userId!,
      description: input.description,
      deviceType: "network",
      configured: pubkey !== null,
    })
    .returning();
  await tx.insert(deviceLocations).values({ deviceId: d.id, locationId: loc.id, ips });
  await recordActivity(tx, actor, {
    event: "network_device_added",
    device: d.name,
    location: loc.name,
    description: pubkey ? `Added network device ${d.name}` : `Added network device ${d.name}, to be configured with the defguard CLI`,
  });
  if (pubkey) emit({ type: "device.location.added", deviceId: d.id, locationId: loc.id });
  return { row: d, device: (await view(tx, [d]))[0], location: loc, ips };
}

/** POST /device/network: {device, config} (the config carries the private key placeholder). */
export async function createNetworkDevice(actor: Actor, input: NetworkDeviceInput) {
  return transaction(async (tx, emit) => {
    const { device, location, ips } = await insertNetworkDevice(tx, emit, actor, input, input.wireguard_pubkey);
    return { device, config: deviceConfig(location, ips, null, null, await clientTrafficPolicy(tx)) };
  });
}

/**
 * PUT /device/network/{id}. Without a key the device keeps its own; a key given to a device
 * waiting for the defguard CLI configures it (its CLI tokens stop working) and gateways get the peer.
 */
export async function updateNetworkDevice(actor: Actor, id: number, input: NetworkDeviceUpdateInput) {
  return transaction(async (tx, emit) => {
    const d = await requireDevice(tx, id, "network");
    const [link] = await tx.select().from(deviceLocations).where(eq(deviceLocations.deviceId, id));
    if (link && link.locationId !== input.location_id) throw badRequest("a network device cannot move to another location", "location_id");
    const loc = await requireLocation(tx, input.location_id);
    const pubkey = input.wireguard_pubkey ?? d.wireguardPubkey;
    await assertUnique(tx, input.name, pubkey === d.wireguardPubkey ? null : pubkey, id);
    const ips = await resolveIps(tx, loc, input.assigned_ips, id);
    const [u] = await tx
      .update(devices)
      .set({ name: input.name, description: input.description, wireguardPubkey: pubkey, configured: pubkey !== null })
      .where(eq(devices.id, id))
      .returning();
    await tx
      .insert(deviceLocations)
      .values({ deviceId: id, locationId: loc.id, ips })
      .onConflictDoUpdate({ target: [deviceLocations.deviceId, deviceLocations.locationId], set: { ips } });
    await recordActivity(tx, actor, { event: "network_device_modified", device: u.name, location: loc.name });
    if (!d.configured && u.configured) {
      await tx.delete(enrollmentTokens).where(and(eq(enrollmentTokens.deviceId, id), isNull(enrollmentTokens.usedAt)));
      emit({ type: "device.location.added", deviceId: id, locationId: loc.id });
    } else if (u.configured) {
      if (d.wireguardPubkey && d.wireguardPubkey !== u.wireguardPubkey) {
        emit({ type: "device.deleted", deviceId: id, pubkey: d.wireguardPubkey, locationIds: [loc.id] });
      }
      emit({ type: "device.location.modified", deviceId: id, locationId: loc.id });
    }
    return (await view(tx, [u]))[0];
  });
}

export async function deleteNetworkDevice(actor: Actor, id: number) {
  await transaction(async (tx, emit) => {
    const d = await requireDevice(tx, id, "network");
    await deleteDeviceRow(tx, emit, actor, d);
  });
}

export async function networkDeviceConfig(id: number) {
  const db = getDb();
  const d = await requireDevice(db, id, "network");
  const [row] = await db
    .select({ ips: deviceLocations.ips, loc: locations })
    .from(deviceLocations)
    .innerJoin(locations, eq(locations.id, deviceLocations.locationId))
    .where(eq(deviceLocations.deviceId, id));
  if (!row) throw badRequest("device has no location");
  return { device: d, config: deviceConfig(row.loc, row.ips, null, null, await clientTrafficPolicy(db)) };
}
