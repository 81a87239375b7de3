import "server-only";
import { eq, inArray, sql } from "drizzle-orm";
import { type Tx } from "../db";
import { deviceLocations, devices, locationGroups, locations, users, groups } from "../db/schema";
import { AppError, badRequest, conflict } from "../errors";
import { encryptSecret } from "../crypto";
import { recordActivity, type Actor } from "../activity/service";
import { transaction } from "../events";
import { parseConfig, WgConfigError } from "../wireguard/config";
import { parseCidr, parseCidrOrIp, formatIp } from "../net/ip";
import { isValidPublicKey, publicKeyFromPrivate } from "../wireguard/keys";
import { assignInLocation } from "../devices/service";
import { checkIps } from "../devices/network";
import { locationResponses, reconcileLocation, requireLocation } from "./service";
import { locationSchema } from "./schema";
import { zodMessage } from "../zod-message";

export const MSG = {
  invalidAddress: "invalid address",
  fillMarked: "fill in marked fields",
  keyInvalid: "key is invalid",
} as const;

/**
 * POST /network/import: a wg-quick file becomes a location (its private key, addresses and
 * port); its peers come back to be mapped to users. The location's own devices are assigned
 * when the mapping is saved, so imported peers keep the addresses they had.
 */
export async function importLocation(
  actor: Actor,
  input: { name: string; endpoint: string; config: string; allowed_groups: string[] },
) {
  let cfg;
  try {
    cfg = parseConfig(input.config);
  } catch (err) {
    // The parser's messages already start with "line N: ".
    if (err instanceof WgConfigError) throw badRequest(err.message, "config");
    throw err;
  }
  const iface = cfg.interface;
  const privateKey = iface.privateKey;
  if (!privateKey) throw badRequest("the [Interface] section has no PrivateKey", "config");
  const address = iface.addresses.map((a) => parseCidr(a));
  if (!address.length || address.some((a) => a === null)) throw badRequest("the [Interface] Address must be addresses with netmask", "config");
  // The imported interface must make a location POST /network would accept.
  const asLocation = locationSchema.safeParse({
    name: input.name,
    endpoint: input.endpoint,
    address: iface.addresses,
    port: iface.listenPort ?? 51820,
    dns: iface.dns.length ? iface.dns.join(",") : null,
    allowed_groups: input.allowed_groups,
  });
  if (!asLocation.success) {
    const { msg } = zodMessage(asLocation.error);
    throw badRequest(`the [Interface] section does not make a valid location (${msg})`, "config");
  }
  // The same key rule as the device routes: a peer with an unusable key cannot be mapped.
  const badPeer = cfg.peers.findIndex((p) => !isValidPublicKey(p.publicKey));
  if (badPeer >= 0) throw badRequest(`[Peer] ${badPeer + 1} has an invalid PublicKey`, "config");
  const peers = cfg.peers.map((p, i) => ({
    name: `imported-${i + 1}`,
    wireguard_pubkey: p.publicKey,
    wireguard_ips: p.allowedIps
      .map((a) => parseCidrOrIp(a))
      .filter((c) => c !== null && c.prefix === c.bits)
      .map((c) => formatIp(c!.addr, c!.version)),
    user_id: null as number | null,
  }));
  return transaction(async (tx, emit) => {
    const [dup] = await tx.select({ id: locations.id }).from(locations).where(eq(locations.name, input.name));
    if (dup) throw conflict("name is already taken", "name");
    const gids = input.allowed_groups.length
      ? await tx.select().from(groups).where(inArray(groups.name, input.allowed_groups))
      : [];
    if (gids.length !== new Set(input.allowed_groups).size) throw badRequest("group not found", "allowed_groups");
    const [l] = await tx
      .insert(locations)
      .values({
        name: input.name,
        address: iface.addresses,
        port: iface.listenPort ?? 51820,
        endpoint: input.endpoint,
        allowedIps: [],
        dns: iface.dns.length ? iface.dns.join(",") : null,
        pubkey: publicKeyFromPrivate(privateKey),
        prvkeyEnc: encryptSecret(privateKey),
      })
      .returning();
    if (gids.length) await tx.insert(locationGroups).values(gids.map((g) => ({ locationId: l.id, groupId: g.id })));
    if (!peers.length) await reconcileLocation(tx, l);
    await recordActivity(tx, actor, { event: "vpn_location_added", location: l.name, description: `Imported location ${l.name} with ${peers.length} peers` });
    emit({ type: "location.changed", locationId: l.id });
    const [network] = await locationResponses(tx, [l.id]);
    return { network, devices: peers };
  });
}

export interface MappedDevice {
  name: string;
  wireguard_pubkey: string;
  user_id: number;
  wireguard_ips: string[];
}

/** POST /network/{id}/devices: create the mapped peers as user devices, keeping their addresses. */
export async function mapImportedDevices(actor: Actor, locationId: number, list: MappedDevice[]) {
  return transaction(async (tx, emit) => {
    const loc = await requireLocation(tx, locationId);
    const problems: { index: number; field: string; msg: string }[] = [];
    // Only users who may use the location (allowed groups; none set = everybody).
    const allowed = await tx.execute<{ id: number }>(sql`
      select u.id from users u
      where u.id in (select (jsonb_array_elements_text(${JSON.stringify([...new Set(list.map((d) => d.user_id))])}::jsonb))::int) and (
        not exists (select 1 from location_allowed_groups lg where lg.location_id = ${loc.id})
        or exists (select 1 from location_allowed_groups lg join group_users gu on gu.group_id = lg.group_id where lg.location_id = ${loc.id} and gu.user_id = u.id))`);
    const userRows = allowed.rows.map((r) => ({ id: Number(r.id) }));
    const keys = new Set<string>();
    const ips = new Set<string>();
    for (const [i, d] of list.entries()) {
      if (!isValidPublicKey(d.wireguard_pubkey) || keys.has(d.wireguard_pubkey) || d.wireguard_pubkey === loc.pubkey)
        problems.push({ index: i, field: "wireguard_pubkey", msg: MSG.keyInvalid });
      keys.add(d.wireguard_pubkey);
      if (!userRows.some((u) => u.id === d.user_id)) problems.push({ index: i, field: "user_id", msg: MSG.fillMarked });
      const checks = await checkIps(tx, loc, d.wireguard_ips);
      if (checks.some((c) => !c.valid || !c.available || ips.has(c.ip))) problems.push({ index: i, field: "wireguard_ips", msg: MSG.invalidAddress });
      checks.forEach((c) => ips.add(c.ip));
    }
    if (problems.length) {
      throw new AppError(400, `${problems[0].msg}: device ${problems[0].index + 1} (${problems[0].field})`, `devices.${problems[0].index}.${problems[0].field}`);
    }
    const created = [];
    for (const d of list) {
      const [taken] = await tx.select({ id: devices.id }).from(devices).where(eq(devices.wireguardPubkey, d.wireguard_pubkey));
      if (taken) throw conflict(`key is already in use by another device: ${d.name}`, "devices");
      const [row] = await tx.insert(devices).values({ name: d.name, wireguardPubkey: d.wireguard_pubkey, userId: d.user_id }).returning();
      const canonical = (await checkIps(tx, loc, d.wireguard_ips)).map((c) => c.ip);
      await tx.insert(deviceLocations).values({ deviceId: row.id, locationId: loc.id, ips: canonical });
      // The device also gets addresses in the other locations its owner may use.
      const others = await tx.execute<{ id: number }>(sql`
        select l.id from locations l where l.id <> ${loc.id} and (
          not exists (select 1 from location_allowed_groups lg where lg.location_id = l.id)
          or exists (select 1 from location_allowed_groups lg join group_users gu on gu.group_id = lg.group_id where lg.location_id = l.id and gu.user_id = ${d.user_id}))`);
      for (const o of others.rows) await assignInLocation(tx, row.id, await requireLocation(tx, Number(o.id)));
      created.push(row.id);
      emit({ type: "device.created", deviceId: row.id, userId: d.user_id });
    }
    await reconcileLocation(tx, loc);
    await recordActivity(tx, actor, { event: "vpn_location_devices_imported", location: loc.name, description: `Mapped ${list.length} imported devices` });
    emit({ type: "location.changed", locationId: loc.id });
    return { created: created.length };
  });
}
