import pg from "pg";
import { eq } from "drizzle-orm";
import { databaseUrl, getDb } from "../db";
import { devices } from "../db/schema";
import { EVENTS_CHANNEL, type DomainEvent } from "../events";
import { gatewayConfiguration, peerFor, userPeers, type WireConfiguration, type WirePeer } from "./service";
import { describeError } from "../log-errors";

/** gateway.Update as written to a stream. */
export type WireUpdate =
  | { update_type: "CREATE" | "MODIFY" | "DELETE"; peer: WirePeer }
  | { update_type: "MODIFY"; network: WireConfiguration }
  | { update_type: "MODIFY"; firewall_config: unknown }
  | { update_type: "MODIFY"; disable_firewall: Record<string, never> };

export interface Subscriber {
  locationId: number;
  write(u: WireUpdate): void;
  end(): void;
}

interface HubState {
  subs: Map<number, Set<Subscriber>>;
  client: pg.Client | null;
  stopped: boolean;
  queue: Promise<void>;
}

const g = globalThis as unknown as { __defguardHub?: HubState };
const hub = (g.__defguardHub ??= { subs: new Map(), client: null, stopped: false, queue: Promise.resolve() });

export function subscribe(s: Subscriber): () => void {
  let set = hub.subs.get(s.locationId);
  if (!set) hub.subs.set(s.locationId, (set = new Set<Subscriber>()));
  set.add(s);
  return () => {
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

function send(locationId: number, u: WireUpdate) {
  for (const s of hub.subs.get(locationId) ?? []) {
    try {
      s.write(u);
    } catch (err) {
      console.error("[gateways] writing an update failed:", describeError(err));
    }
  }
}

async function pubkeyOf(deviceId: number): Promise<string | null> {
  const [d] = await getDb().select({ k: devices.wireguardPubkey }).from(devices).where(eq(devices.id, deviceId));
  return d?.k ?? null;
}

const deletePeer = (pubkey: string): WireUpdate => ({ update_type: "DELETE", peer: { pubkey, allowed_ips: [] } });

/** Turn committed domain events into the smallest updates for the streams this process holds. */
export async function handleEvents(events: DomainEvent[]): Promise<void> {
  for (const e of events) {
    switch (e.type) {
      case "device.location.added":
      case "device.location.modified": {
        if (!subscriberCount(e.locationId)) break;
        const peer = await peerFor(e.locationId, e.deviceId);
        if (peer) send(e.locationId, { update_type: e.type === "device.location.added" ? "CREATE" : "MODIFY", peer });
        else if (e.type === "device.location.modified") {
          const k = await pubkeyOf(e.deviceId);
          if (k) send(e.locationId, deletePeer(k));
        }
        break;
      }
      case "device.location.removed": {
        if (!subscriberCount(e.locationId)) break;
        const k = await pubkeyOf(e.deviceId);
        if (k) send(e.locationId, deletePeer(k));
        break;
      }
      case "device.deleted": {
        // A network device still waiting for the defguard CLI never was a peer.
        const pubkey = e.pubkey;
        if (!pubkey) break;
        for (const loc of e.locationIds) if (subscriberCount(loc)) send(loc, deletePeer(pubkey));
        break;
      }
      case "user.disabled":
      case "user.enabled": {
        if (!subscriberCount()) break;
        for (const p of await userPeers(e.userId)) {
          if (!subscriberCount(p.locationId)) continue;
          if (e.type === "user.disabled") send(p.locationId, deletePeer(p.pubkey));
          else if (p.peer) send(p.locationId, { update_type: "CREATE", peer: p.peer });
        }
        break;
      }
      case "location.changed":
        if (subscriberCount(e.locationId)) send(e.locationId, { update_type: "MODIFY", network: await gatewayConfiguration(e.locationId) });
        break;
      case "location.deleted":
        for (const s of [...(hub.subs.get(e.locationId) ?? [])]) s.end();
        break;
      default:
        break;
    }
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
      let events: DomainEvent[];
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
      if (!hub.stopped) setTimeout(() => void connect().catch(() => {}), 1000);
    });
    await client.connect();
    await client.query(`LISTEN ${EVENTS_CHANNEL}`);
    hub.client = client;
  };
  await connect();
}

export async function stopHub(): Promise<void> {
  hub.stopped = true;
  for (const set of hub.subs.values()) for (const s of set) s.end();
  hub.subs.clear();
  await hub.client?.end().catch(() => {});
  hub.client = null;
}
