import "server-only";
import { and, asc, eq, sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { gateways, locations } from "../db/schema";
import { notFound } from "../errors";
import { grpcHost, grpcPort, grpcTlsFiles, publicUrl, secret } from "../config";
import { transaction } from "../events";
import { recordActivity, SYSTEM_ACTOR, type Actor } from "../activity/service";
import { locationPrivateKey, requireLocation, type LocationRow } from "../locations/service";
import { parseIp } from "../net/ip";
import { gatewayFromToken, gatewayToken } from "./jwt";
import { decryptSecret } from "../crypto";
import { locationFirewall } from "../acl/firewall";

/** gateway.Peer as sent on the wire. */
export interface WirePeer {
  pubkey: string;
  allowed_ips: string[];
  preshared_key?: string;
  keepalive_interval?: number;
}

/** gateway.Configuration as sent on the wire; firewall_config only while the location has ACL on. */
export interface WireConfiguration {
  name: string;
  prvkey: string;
  port: number;
  peers: WirePeer[];
  addresses: string[];
  firewall_config?: unknown;
}

const hostRoute = (ip: string) => `${ip}/${parseIp(ip)?.version === 6 ? 128 : 32}`;

type PeerRow = {
  device_id: number;
  pubkey: string;
  ips: string[];
  preshared_key: string | null;
  is_authorized: boolean;
  is_active: boolean;
  device_type: string;
  mfa_mode: string;
  keepalive: number;
};

/**
 * The preshared key of an MFA session, stored encrypted (lib/crypto); null when there is none or
 * it cannot be read (then the device is not a peer until its next MFA login).
 */
function sessionPsk(stored: string | null): string | null {
  if (!stored) return null;
  try {
    return decryptSecret(stored);
  } catch {
    return null;
  }
}

/**
 * Peers a location's gateway must have right now: configured devices with addresses there whose
 * owner is active (network devices always); in MFA locations (internal or external) a user
 * device only while it has an MFA session (is_authorized, set by /client-mfa/finish and cleared
 * by the MFA session job), with the session's PSK. A network device waiting for the defguard
 * CLI (no key yet) is never a peer: the queries below leave it out. Network devices are not
 * subject to location MFA (they cannot be added to an MFA location; `dg` has no MFA step).
 */
function toPeer(r: PeerRow): WirePeer | null {
  if (r.device_type === "user" && !r.is_active) return null;
  const mfa = r.mfa_mode !== "disabled";
  const psk = mfa && r.device_type === "user" && r.is_authorized ? sessionPsk(r.preshared_key) : null;
  if (mfa && r.device_type === "user" && !psk) return null;
  const peer: WirePeer = { pubkey: r.pubkey, allowed_ips: r.ips.map(hostRoute), keepalive_interval: r.keepalive };
  if (psk) peer.preshared_key = psk;
  return peer;
}

const peerSelect = (where: ReturnType<typeof sql>) => sql`
  select d.id device_id, d.wireguard_pubkey pubkey, dl.ips, dl.preshared_key, dl.is_authorized, u.is_active,
         d.device_type, l.location_mfa_mode mfa_mode, l.keepalive_interval keepalive
  from device_locations dl
  join devices d on d.id = dl.device_id
  join users u on u.id = d.user_id
  join locations l on l.id = dl.location_id
  where ${where} and d.configured and d.wireguard_pubkey is not null
  order by d.id`;

export async function desiredPeers(locationId: number, tx: Tx = getDb()): Promise<WirePeer[]> {
  const r = await tx.execute<PeerRow>(peerSelect(sql`dl.location_id = ${locationId}`));
  return r.rows.map(toPeer).filter((p): p is WirePeer => p !== null);
}

/** The peer one device should be in one location, or null when it should not be there. */
export async function peerFor(locationId: number, deviceId: number): Promise<WirePeer | null> {
  const r = await getDb().execute<PeerRow>(peerSelect(sql`dl.location_id = ${locationId} and dl.device_id = ${deviceId}`));
  return r.rows[0] ? toPeer(r.rows[0]) : null;
}

/** A user's own devices (with keys and locations), for enabling/disabling their peers; network devices they added stay. */
export async function userPeers(userId: number) {
  const r = await getDb().execute<PeerRow & { location_id: number }>(sql`
    select dl.location_id, d.id device_id, d.wireguard_pubkey pubkey, dl.ips, dl.preshared_key, dl.is_authorized, u.is_active,
           d.device_type, l.location_mfa_mode mfa_mode, l.keepalive_interval keepalive
    from device_locations dl join devices d on d.id = dl.device_id join users u on u.id = d.user_id
    join locations l on l.id = dl.location_id
    where d.user_id = ${userId} and d.device_type = 'user' and d.configured and d.wireguard_pubkey is not null`);
  return r.rows.map((row) => ({ locationId: Number(row.location_id), pubkey: row.pubkey, peer: toPeer(row) }));
}

export async function gatewayConfiguration(locationId: number): Promise<WireConfiguration> {
  const db = getDb();
  const loc = await requireLocation(db, locationId);
  const cfg = configurationFor(loc, await desiredPeers(locationId, db));
  const firewall = await locationFirewall(locationId, db);
  if (firewall) cfg.firewall_config = firewall;
  return cfg;
}

export function configurationFor(loc: LocationRow, peers: WirePeer[]): WireConfiguration {
  return { name: loc.name, prvkey: locationPrivateKey(loc), port: loc.port, peers, addresses: loc.address };
}

/** GatewayState of docs/api.md. */
export function toGatewayState(g: typeof gateways.$inferSelect, locationName: string) {
  return {
    uid: String(g.id),
    id: g.id,
    name: g.name,
    hostname: g.hostname,
    connected: g.connected,
    connected_at: g.connectedAt?.toISOString() ?? null,
    disconnected_at: g.disconnectedAt?.toISOString() ?? null,
    network_id: g.locationId,
    network_name: locationName,
    version: g.version,
  };
}

export async function listGateways(locationId?: number) {
  const rows = await getDb()
    .select({ g: gateways, name: locations.name })
    .from(gateways)
    .innerJoin(locations, eq(locations.id, gateways.locationId))
    .where(locationId ? eq(gateways.locationId, locationId) : undefined)
    .orderBy(asc(gateways.locationId), asc(gateways.hostname));
  return rows.map((r) => toGatewayState(r.g, r.name));
}

/** GET /network/{id}/gateways: 404 for an unknown location, else its gateways. */
export async function locationGateways(locationId: number) {
  await requireLocation(getDb(), locationId);
  return listGateways(locationId);
}

/** GET /network/gateways: {"<location id>": [GatewayState]}. */
export async function gatewaysByLocation() {
  const out: Record<string, ReturnType<typeof toGatewayState>[]> = {};
  for (const g of await listGateways()) (out[String(g.network_id)] ??= []).push(g);
  return out;
}

/** Forget a gateway; a stream it still holds (on any console process) is closed. */
export async function deleteGateway(actor: Actor, locationId: number, gatewayId: number) {
  await transaction(async (tx, emit) => {
    const removed = await tx
      .delete(gateways)
      .where(and(eq(gateways.id, gatewayId), eq(gateways.locationId, locationId)))
      .returning();
    if (!removed.length) throw notFound("gateway not found");
    const [l] = await tx.select({ name: locations.name }).from(locations).where(eq(locations.id, locationId));
    await recordActivity(tx, actor, { event: "gateway_removed", module: "vpn", location: l?.name ?? null, description: `Removed gateway ${removed[0].hostname}` });
    emit({ type: "gateway.removed", locationId, hostname: removed[0].hostname });
  });
}

const isLoopbackHost = (host: string) => {
  const h = host.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h === "::1" || h.startsWith("127.");
};

/**
 * {token, grpc_url} (defguard's answer) plus `grpc_plaintext_exposed`: gateways are served
 * without TLS on an address other machines can reach, so the location's private key (sent in
 * Config) crosses the network in clear.
 */
/** The gRPC address gateways and provisioning workers dial (public host, gRPC port, http or https). */
export function grpcUrl(): string {
  const tls = grpcTlsFiles() !== null;
  return `${tls ? "https" : "http"}://${new URL(publicUrl()).hostname}:${grpcPort()}`;
}

function tokenAnswer(locationId: number, generation: number) {
  const tls = grpcTlsFiles() !== null;
  return {
    token: gatewayToken(locationId, secret("gatewaySecret"), generation),
    grpc_url: grpcUrl(),
    grpc_plaintext_exposed: !tls && !isLoopbackHost(grpcHost()),
  };
}

/** GET /network/{id}/token: a token of the location's current generation. */
export async function tokenFor(locationId: number) {
  const l = await requireLocation(getDb(), locationId);
  return tokenAnswer(locationId, l.gatewayTokenGeneration);
}

/**
 * POST /network/{id}/token/rotate: a new token generation. Tokens of older generations are
 * refused from now on, and the streams opened with them (on every console process) are cut
 * with UNAUTHENTICATED.
 */
export async function rotateToken(actor: Actor, locationId: number) {
  const generation = await transaction(async (tx, emit) => {
    const [l] = await tx
      .update(locations)
      .set({ gatewayTokenGeneration: sql`${locations.gatewayTokenGeneration} + 1` })
      .where(eq(locations.id, locationId))
      .returning({ name: locations.name, generation: locations.gatewayTokenGeneration });
    if (!l) throw notFound("location not found");
    await recordActivity(tx, actor, {
      event: "gateway_token_rotated",
      module: "vpn",
      location: l.name,
      description: `Regenerated the gateway token of ${l.name}; older tokens are revoked`,
    });
    emit({ type: "gateway.token.rotated", locationId, generation: l.generation });
    return l.generation;
  });
  return tokenAnswer(locationId, generation);
}

export type GatewayAuth =
  | { ok: true; locationId: number; generation: number }
  | { ok: false; reason: "invalid" | "revoked" | "no-location"; locationId?: number };

/** Check a gateway's token: signature and claims, then the location's current token generation. */
export async function authenticateGateway(token: string): Promise<GatewayAuth> {
  const t = gatewayFromToken(token, secret("gatewaySecret"));
  if (!t) return { ok: false, reason: "invalid" };
  const [l] = await getDb()
    .select({ generation: locations.gatewayTokenGeneration })
    .from(locations)
    .where(eq(locations.id, t.locationId));
  if (!l) return { ok: false, reason: "no-location", locationId: t.locationId };
  if (t.generation !== l.generation) return { ok: false, reason: "revoked", locationId: t.locationId };
  return { ok: true, ...t };
}

type Meta = { name?: string | null; version?: string | null };

async function upsertSeen(tx: Tx, locationId: number, hostname: string, meta: Meta, connected?: string) {
  const now = new Date();
  const set = {
    lastSeenAt: now,
    ...(meta.name ? { name: meta.name } : {}),
    ...(meta.version ? { version: meta.version } : {}),
    ...(connected ? { connected: true, connectedAt: now, processId: connected } : {}),
  };
  const [g] = await tx
    .insert(gateways)
    .values({ locationId, hostname, name: meta.name ?? null, version: meta.version ?? null, ...set })
    .onConflictDoUpdate({ target: [gateways.locationId, gateways.hostname], set })
    .returning();
  return g;
}

/** A gateway fetched its configuration. */
export async function gatewaySeen(locationId: number, hostname: string, meta: Meta) {
  await transaction((tx) => upsertSeen(tx, locationId, hostname, meta));
}

/** A gateway opened its update stream (held by console process `processId`). */
export async function gatewayConnected(locationId: number, hostname: string, processId: string, meta: Meta = {}) {
  return transaction(async (tx) => {
    const g = await upsertSeen(tx, locationId, hostname, meta, processId);
    const [l] = await tx.select({ name: locations.name }).from(locations).where(eq(locations.id, locationId));
    await recordActivity(tx, SYSTEM_ACTOR, { event: "gateway_connected", module: "vpn", location: l?.name ?? null, description: `Gateway ${hostname} connected` });
    return g;
  });
}

/** A gateway's update stream ended. Nothing is recorded for a gateway removed meanwhile. */
export async function gatewayDisconnected(locationId: number, hostname: string) {
  await transaction(async (tx) => {
    const updated = await tx
      .update(gateways)
      .set({ connected: false, disconnectedAt: new Date() })
      .where(and(eq(gateways.locationId, locationId), eq(gateways.hostname, hostname)))
      .returning({ id: gateways.id });
    if (!updated.length) return;
    const [l] = await tx.select({ name: locations.name }).from(locations).where(eq(locations.id, locationId));
    await recordActivity(tx, SYSTEM_ACTOR, { event: "gateway_disconnected", module: "vpn", location: l?.name ?? null, description: `Gateway ${hostname} disconnected` });
  });
}

/** At start-up: gateways recorded as connected through this process's previous life are not. */
export async function resetStaleConnections(processId: string) {
  await transaction((tx) =>
    tx
      .update(gateways)
      .set({ connected: false, disconnectedAt: new Date() })
      .where(and(eq(gateways.connected, true), sql`${gateways.processId} is distinct from ${processId}`, sql`${gateways.lastSeenAt} < now() - interval '2 minutes'`)),
  );
}
