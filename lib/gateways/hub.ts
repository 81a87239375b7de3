import "server-only";
import pg from "pg";
import { eq } from "drizzle-orm";
import { databaseUrl, getDb } from "../db";
import { devices } from "../db/schema";
import { EVENTS_CHANNEL, type StampedEvent } from "../events";
import { metrics } from "../metrics";
import { gatewayConfiguration, peerFor, userPeers, type WireConfiguration, type WirePeer } from "./service";
import { describeError } from "../log-errors";
import { locationFirewall } from "../acl/firewall";

/** gateway.Update as written to a stream. */
export type WireUpdate =
  | { update_type: "CREATE" | "MODIFY" | "DELETE"; peer: WirePeer }
  | { update_type: "MODIFY"; network: WireConfiguration }
  | { update_type: "MODIFY"; firewall_config: unknown }
  | { update_type: "MODIFY"; disable_firewall: Record<string, never> };

/** Why the hub ends a gateway call. */
export type CutReason = "revoked" | "removed" | "module_disabled";

/**
 * A gateway call this process holds (an Updates or Stats stream), opened with a token of
 * `generation`. `cut` ends it: "revoked" when its token generation was rotated away,
 * "removed" when an admin removed the gateway, "module_disabled" when the WireGuard module was
 * switched off in Settings → Global.
 */
export interface Session {
  locationId: number;
  hostname: string;
  generation: number;
  /**
   * wireguardOffCount() when the call read the module switch: a switch-off seen since then (it
   * committed after that read) cuts the call as soon as it registers.
   */
  switchesSeen?: number;
  cut(why: CutReason): void;
}

/**
 * An Updates stream: receives the location's changes. With hostname, generation and cut it is
 * also a session that revocation and removal can end (in-process listeners leave them out).
 */
export interface Subscriber extends Partial<Session> {
  locationId: number;
  write(u: WireUpdate): void;
  /**
   * Revisioned streams (gatewaysync.GatewaySyncService/Updates) only: the updates of the change
   * that made the location's revision `revision` have been written.
   */
  mark?(revision: number): void;
  end(): void;
}

interface HubState {
  subs: Map<number, Set<Subscriber>>;
  /**
   * Per location, the firewall this process last sent or saw sent (JSON, or "off" for none), so
   * an event that does not change the compiled config sends nothing.
   */
  firewalls: Map<number, string>;
  sessions: Set<Session>;
  /** Per location, the lowest token generation still valid, as learnt from rotation events. */
  minGeneration: Map<number, number>;
  /** How many times this process saw the WireGuard module switched off. */
  wireguardOff: number;
  client: pg.Client | null;
  stopped: boolean;
  queue: Promise<void>;
}

const g = globalThis as unknown as { __defguardHub?: HubState };
const hub = (g.__defguardHub ??= { subs: new Map(), firewalls: new Map(), sessions: new Set(), minGeneration: new Map(), wireguardOff: 0, client: null, stopped: false, queue: Promise.resolve() });
// A hub kept on globalThis across a development reload may predate these fields.
hub.sessions ??= new Set();
hub.minGeneration ??= new Map();
hub.firewalls ??= new Map();
hub.wireguardOff ??= 0;

/** See Session.switchesSeen. */
export function wireguardOffCount(): number {
  return hub.wireguardOff;
}

/**
 * Hold a session. A session whose token generation was rotated away while it was being
 * authenticated is cut at once (the rotation event may have arrived in between).
 */
export function register(s: Session): () => void {
  hub.sessions.add(s);
  if (s.generation < (hub.minGeneration.get(s.locationId) ?? 0)) queueMicrotask(() => s.cut("revoked"));
  else if (s.switchesSeen !== undefined && hub.wireguardOff > s.switchesSeen) queueMicrotask(() => s.cut("module_disabled"));
  return () => void hub.sessions.delete(s);
}

export function subscribe(s: Subscriber): () => void {
  // The stream's gateway got (or gets) the current firewall with its Config: remember it.
  if (!hub.firewalls.has(s.locationId)) void primeFirewall(s.locationId);
  let set = hub.subs.get(s.locationId);
  if (!set) hub.subs.set(s.locationId, (set = new Set<Subscriber>()));
  set.add(s);
  const { hostname, generation, cut, switchesSeen } = s;
  const unregister = hostname !== undefined && generation !== undefined && cut ? register({ locationId: s.locationId, hostname, generation, switchesSeen, cut }) : () => {};
  return () => {
    unregister();
    set!.delete(s);
    if (!set!.size) hub.subs.delete(s.locationId);
  };
}

export function subscriberCount(locationId?: number): number {
  if (locationId !== undefined) return hub.subs.get(locationId)?.size ?? 0;
  let n = 0;
  for (const s of hub.subs.values()) n += s.size;
  return n;
}

/** Sessions (Updates and Stats calls) held for a location, for tests and diagnostics. */
export function sessionCount(locationId: number): number {
  let n = 0;
  for (const s of hub.sessions) if (s.locationId === locationId) n++;
  return n;
}

function cutWhere(match: (s: Session) => boolean, why: CutReason) {
  for (const s of [...hub.sessions]) {
    if (!match(s)) continue;
    try {
      s.cut(why);
    } catch (err) {
      console.error("[gateways] closing a gateway call failed:", err);
    }
  }
}

// Commit time of the event being handled, for the propagation-latency metric.
let handlingAt: number | undefined;

function send(locationId: number, u: WireUpdate) {
  if (handlingAt !== undefined && hub.subs.get(locationId)?.size) metrics().propagation.observe(Math.max(0, Date.now() - handlingAt) / 1000);
  for (const s of hub.subs.get(locationId) ?? []) {
    try {
      s.write(u);
    } catch (err) {
      console.error("[gateways] writing an update failed:", describeError(err));
    }
  }
}

/** Send to the streams of one gateway (`hostname`) of a location, or to all of them (null). */
function sendTo(locationId: number, hostname: string | null, u: WireUpdate) {
  if (hostname === null) return send(locationId, u);
  for (const s of hub.subs.get(locationId) ?? []) {
    if (s.hostname !== hostname) continue;
    try {
      s.write(u);
    } catch (err) {
      console.error("[gateways] writing an update failed:", describeError(err));
    }
  }
}

/** The change that made these revisions is written: tell the revisioned streams. */
function markRevisions(rev: Record<string, number>) {
  for (const [loc, revision] of Object.entries(rev)) {
    for (const s of hub.subs.get(Number(loc)) ?? []) {
      try {
        s.mark?.(revision);
      } catch (err) {
        console.error("[gateways] writing a revision marker failed:", describeError(err));
      }
    }
  }
}

async function pubkeyOf(deviceId: number): Promise<string | null> {
  const [d] = await getDb().select({ k: devices.wireguardPubkey }).from(devices).where(eq(devices.id, deviceId));
  return d?.k ?? null;
}

const firewallKey = (fw: unknown) => (fw ? JSON.stringify(fw) : "off");

async function primeFirewall(locationId: number) {
  try {
    const fw = await locationFirewall(locationId);
    if (!hub.firewalls.has(locationId)) hub.firewalls.set(locationId, firewallKey(fw));
  } catch (err) {
    console.error("[gateways] compiling the firewall failed:", describeError(err));
  }
}

/**
 * Recompile a location's firewall and send it when it differs from what its gateways last got:
 * `firewall_config`, or `disable_firewall` when ACL went off. Nothing while ACL stays off.
 */
async function pushFirewall(locationId: number) {
  if (!subscriberCount(locationId)) return;
  const fw = await locationFirewall(locationId);
  const key = firewallKey(fw);
  const last = hub.firewalls.get(locationId);
  if (last === key || (last === undefined && key === "off")) return;
  hub.firewalls.set(locationId, key);
  if (fw) send(locationId, { update_type: "MODIFY", firewall_config: fw });
  else send(locationId, { update_type: "MODIFY", disable_firewall: {} });
}

async function pushFirewalls(locationIds: Iterable<number> | "all") {
  const list = locationIds === "all" ? [...hub.subs.keys()] : [...new Set(locationIds)];
  for (const id of list) await pushFirewall(id);
}

/**
 * Send a location's whole configuration (`network` MODIFY: interface, every peer, the firewall)
 * to its gateways, which apply the difference. The configuration carries the firewall (none while
 * ACL is off); a gateway that had one is also told explicitly that ACL went off.
 */
async function sendConfiguration(locationId: number) {
  if (!subscriberCount(locationId)) return;
  const network = await gatewayConfiguration(locationId);
  send(locationId, { update_type: "MODIFY", network });
  const key = firewallKey(network.firewall_config);
  const last = hub.firewalls.get(locationId);
  hub.firewalls.set(locationId, key);
  if (key === "off" && last !== undefined && last !== "off") send(locationId, { update_type: "MODIFY", disable_firewall: {} });
}

const deletePeer = (pubkey: string): WireUpdate => ({ update_type: "DELETE", peer: { pubkey, allowed_ips: [] } });

/** Turn committed domain events into the smallest updates for the streams this process holds. */
export async function handleEvents(events: StampedEvent[]): Promise<void> {
  for (const e of events) {
    handlingAt = e.at;
    // A bulk action's per-object events (only in-process): their gateways.batch carries them.
    if ((e as { batched?: boolean }).batched) {
      if (e.rev) markRevisions(e.rev);
      continue;
    }
    try {
      await handleEvent(e);
    } finally {
      // Even when handling failed: the agent acknowledges, and its state report shows what differs.
      if (e.rev) markRevisions(e.rev);
    }
  }
}

async function handleEvent(e: StampedEvent): Promise<void> {
  switch (e.type) {
    case "device.location.added":
    case "device.location.modified": {
      if (!subscriberCount(e.locationId)) break;
      // The firewall first: compiled rules span addresses of no peer (lib/acl/compile.ts), so
      // a new peer's address must be placed exactly before the peer can send.
      await pushFirewall(e.locationId);
      const peer = await peerFor(e.locationId, e.deviceId);
      if (peer) send(e.locationId, { update_type: e.type === "device.location.added" ? "CREATE" : "MODIFY", peer });
      else if (e.type === "device.location.modified") {
        const k = await pubkeyOf(e.deviceId);
        if (k) send(e.locationId, deletePeer(k));
      }
      break;
    }
    case "device.location.authorized":
    case "device.location.deauthorized": {
      // MFA sessions: the peer comes with the session's PSK (CREATE, as defguard sends it) and
      // goes when the session ends; where the location no longer uses MFA it stays, without a PSK.
      if (!subscriberCount(e.locationId)) break;
      const peer = await peerFor(e.locationId, e.deviceId);
      if (peer) send(e.locationId, { update_type: e.type === "device.location.authorized" ? "CREATE" : "MODIFY", peer });
      else if (e.type === "device.location.deauthorized") {
        const k = await pubkeyOf(e.deviceId);
        if (k) send(e.locationId, deletePeer(k));
      }
      break;
    }
    case "device.location.removed": {
      if (!subscriberCount(e.locationId)) break;
      const k = await pubkeyOf(e.deviceId);
      if (k) send(e.locationId, deletePeer(k));
      await pushFirewall(e.locationId);
      break;
    }
    case "device.deleted": {
      // A network device still waiting for the defguard CLI never was a peer.
      const pubkey = e.pubkey;
      if (!pubkey) break;
      for (const loc of e.locationIds) if (subscriberCount(loc)) send(loc, deletePeer(pubkey));
      await pushFirewalls(e.locationIds);
      break;
    }
    case "user.disabled":
    case "user.enabled": {
      if (!subscriberCount()) break;
      // Enabled: the firewall placing the returning peers first (as for a new device above);
      // disabled: the peers go first, then the firewall that no longer names them.
      if (e.type === "user.enabled") await pushFirewalls("all");
      for (const p of await userPeers(e.userId)) {
        if (!subscriberCount(p.locationId)) continue;
        if (e.type === "user.disabled") send(p.locationId, deletePeer(p.pubkey));
        else if (p.peer) send(p.locationId, { update_type: "CREATE", peer: p.peer });
      }
      if (e.type === "user.disabled") await pushFirewalls("all");
      break;
    }
    case "user.modified":
    case "user.deleted":
    case "group.changed":
      // Group membership decides rule sources.
      if (subscriberCount()) await pushFirewalls("all");
      break;
    case "acl.changed":
      if (subscriberCount()) await pushFirewalls(e.locationIds);
      break;
    case "location.changed":
      await sendConfiguration(e.locationId);
      break;
    case "gateways.batch":
      // A bulk action: one whole configuration per location (peers and firewall), so thousands
      // of changed objects are one message per gateway.
      for (const id of new Set(e.locationIds)) {
        await sendConfiguration(id).catch((err) => console.error(`[gateways] sending location ${id}'s configuration failed:`, describeError(err)));
      }
      break;
    case "gateway.reconcile": {
      // The full configuration (peers and firewall), which the agent diffs against the live
      // interface and table: what was changed behind its back is put back.
      if (!subscriberCount(e.locationId)) break;
      const network = await gatewayConfiguration(e.locationId);
      sendTo(e.locationId, e.hostname, { update_type: "MODIFY", network });
      const key = firewallKey(network.firewall_config);
      hub.firewalls.set(e.locationId, key);
      if (key === "off") sendTo(e.locationId, e.hostname, { update_type: "MODIFY", disable_firewall: {} });
      break;
    }
    case "location.deleted":
      hub.firewalls.delete(e.locationId);
      for (const s of [...(hub.subs.get(e.locationId) ?? [])]) s.end();
      hub.minGeneration.delete(e.locationId);
      break;
    case "gateway.token.rotated":
      if ((hub.minGeneration.get(e.locationId) ?? 0) < e.generation) hub.minGeneration.set(e.locationId, e.generation);
      cutWhere((s) => s.locationId === e.locationId && s.generation < e.generation, "revoked");
      break;
    case "gateway.removed":
      cutWhere((s) => s.locationId === e.locationId && s.hostname === e.hostname, "removed");
      break;
    case "module.switched":
      // The WireGuard module switched off: every gateway call is told once (PERMISSION_DENIED
      // naming the module) and ended; the gateways keep their interfaces as they are and are
      // refused until the module is on again.
      if (e.module === "wireguard" && !e.enabled) {
        hub.wireguardOff++;
        cutWhere(() => true, "module_disabled");
      }
      break;
    default:
      break;
  }
}

/**
 * Listen for committed events from every console process (PostgreSQL NOTIFY) and feed the
 * streams held here. Reconnects after a lost connection.
 */
export async function startHub(): Promise<void> {
  hub.stopped = false;
  const connect = async () => {
    const client = new pg.Client({ connectionString: databaseUrl() });
    client.on("notification", (msg) => {
      if (msg.channel !== EVENTS_CHANNEL || !msg.payload) return;
      let events: StampedEvent[];
      try {
        events = JSON.parse(msg.payload);
      } catch {
        return;
      }
      // Keep the order of events across notifications.
      hub.queue = hub.queue.then(() => handleEvents(events)).catch((err) => console.error("[gateways] handling events failed:", describeError(err)));
    });
    client.on("error", (err) => {
      console.error("[gateways] event listener lost its connection:", err.message);
      hub.client = null;
      client.end().catch(() => {});
      if (!hub.stopped) void reconnect();
    });
    await client.connect();
    await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    hub.client = client;
  };
  // While the database is down, retry with backoff (0.5 s doubling to 10 s) until it answers.
  const reconnect = async () => {
    for (let delay = 500; !hub.stopped; delay = Math.min(delay * 2, 10_000)) {
      await new Promise((r) => setTimeout(r, delay));
      if (hub.stopped) return;
      try {
        await connect();
        console.error("[gateways] event listener reconnected");
        return;
      } catch {
        // still down
      }
    }
  };
  await connect();
}

export async function stopHub(): Promise<void> {
  hub.stopped = true;
  for (const set of hub.subs.values()) for (const s of set) s.end();
  hub.subs.clear();
  hub.firewalls.clear();
  hub.sessions.clear();
  await hub.client?.end().catch(() => {});
  hub.client = null;
}
