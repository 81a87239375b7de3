import "server-only";
import { getDb, getPool, type Tx } from "../db";
import { describeError } from "../log-errors";
import { enqueueWebhookDeliveries } from "../outbox/enqueue";
import { kickOutbox } from "../outbox/worker";
import { bumpRevisions } from "./revisions";
import type { ModuleName } from "../auth/modules";

/**
 * Domain events, published only after the transaction that produced them commits, so a
 * consumer (webhooks, gateways) never sees a change that was rolled back.
 */
export type DomainEvent =
  | { type: "user.created"; userId: number; username: string }
  | { type: "user.modified"; userId: number; username: string }
  | { type: "user.deleted"; userId: number; username: string }
  | { type: "user.disabled"; userId: number; username: string }
  | { type: "user.enabled"; userId: number; username: string }
  /** A worker provisioned a YubiKey: defguard's user_keys webhook body (HWKeyUserData). */
  | { type: "user.keys"; userId: number; username: string; keys: { username: string; email: string; ssh_key: string; pgp_key: string; serial: string } }
  | { type: "group.changed"; groupId: number; name: string }
  | { type: "location.changed"; locationId: number }
  | { type: "location.deleted"; locationId: number }
  | { type: "device.created"; deviceId: number; userId: number }
  | { type: "device.modified"; deviceId: number }
  /** pubkey is null for a network device deleted before the defguard CLI configured it (no peer anywhere). */
  | { type: "device.deleted"; deviceId: number; pubkey: string | null; locationIds: number[] }
  | { type: "device.location.added"; deviceId: number; locationId: number }
  | { type: "device.location.removed"; deviceId: number; locationId: number }
  | { type: "device.location.modified"; deviceId: number; locationId: number }
  /** The device completed MFA for this location (/client-mfa/finish): its peer, with the session's PSK. */
  | { type: "device.location.authorized"; deviceId: number; locationId: number }
  /** The device's MFA session in this location ended: its peer goes (or stays without a PSK where MFA is off). */
  | { type: "device.location.deauthorized"; deviceId: number; locationId: number }
  | { type: "gateway.removed"; locationId: number; hostname: string }
  /** Deployed ACL rules or aliases, or expired rules, changed what these locations' firewalls get. */
  | { type: "acl.changed"; locationIds: number[] | "all" }
  /** Gateway tokens of this location older than `generation` are revoked. */
  | { type: "gateway.token.rotated"; locationId: number; generation: number }
  /** "Reconcile now" or an automatic drift repair: resend the full configuration (to `hostname`'s stream only, or to all). */
  | { type: "gateway.reconcile"; locationId: number; hostname: string | null }
  /**
   * A bulk action (lib/bulk) changed the peers or firewall of these locations: each location's
   * gateways get its whole configuration once (one message per gateway, whatever the number of
   * objects), instead of one update per object.
   */
  | { type: "gateways.batch"; locationIds: number[]; objects: number }
  /**
   * A module of Settings → Global was switched off or on. Switched off, its open gRPC calls are
   * ended (the WireGuard module: the gateways' update and statistics streams, lib/gateways/hub.ts).
   */
  | { type: "module.switched"; module: ModuleName; enabled: boolean };

/**
 * An event of a bulk action whose gateway side is carried by its `gateways.batch`: still queued
 * for webhooks, but not sent to other processes nor turned into gateway updates of its own.
 */
export type Batched<E extends DomainEvent = DomainEvent> = E & { batched: true };

type Handler = (e: DomainEvent) => void | Promise<void>;
const g = globalThis as unknown as { __defguardEvents?: Set<Handler> };
const handlers = (g.__defguardEvents ??= new Set<Handler>());

export function subscribe(h: Handler): () => void {
  handlers.add(h);
  return () => handlers.delete(h);
}

function dispatch(events: DomainEvent[]) {
  for (const e of events) {
    for (const h of handlers) {
      Promise.resolve()
        .then(() => h(e))
        .catch((err) => console.error(`[events] handler failed for ${e.type}:`, describeError(err)));
    }
  }
}

export type Emit = (e: DomainEvent) => void;

/** PostgreSQL channel carrying committed events to every console process (gateway streams). */
export const EVENTS_CHANNEL = "defguard_events";
// NOTIFY payloads are limited to 8000 bytes: send events in batches well below that.
const NOTIFY_BATCH_BYTES = 6000;

/**
 * A committed event as sent over NOTIFY: `at` is the commit time (ms), for the propagation-latency
 * metric. The last event of a transaction that bumped location revisions carries them in `rev`
 * ({location id: revision}): once it is handled, that revision is complete (lib/gateways/hub.ts).
 */
export type StampedEvent = DomainEvent & { at?: number; rev?: Record<string, number> };

async function notifyOtherProcesses(events: DomainEvent[], at: number, rev: Record<string, number> | null = null) {
  let batch: StampedEvent[] = [];
  let size = 2;
  const flush = async () => {
    if (!batch.length) return;
    await getPool().query("select pg_notify($1, $2)", [EVENTS_CHANNEL, JSON.stringify(batch)]);
    batch = [];
    size = 2;
  };
  const last = events.findLastIndex((e) => e.type !== "user.keys" && !(e as Partial<Batched>).batched);
  for (const [i, ev] of events.entries()) {
    // Its keys can exceed NOTIFY's 8000 bytes, and no other process acts on it (the webhook is queued in the transaction).
    if (ev.type === "user.keys") continue;
    // A bulk action's per-object events: their gateway updates travel as one gateways.batch.
    if ((ev as Partial<Batched>).batched) continue;
    const e: StampedEvent = i === last && rev ? { ...ev, at, rev } : { ...ev, at };
    const n = JSON.stringify(e).length + 1;
    if (size + n > NOTIFY_BATCH_BYTES) await flush();
    batch.push(e);
    size += n;
  }
  await flush();
}

/**
 * Run `fn` in one transaction; events it emits are dispatched after a successful commit to
 * the in-process handlers and, through PostgreSQL NOTIFY, to every console process. The
 * webhook deliveries the events call for are written to the outbox (lib/outbox) in the same
 * transaction, last, so they exist exactly when the change does.
 */
export async function transaction<T>(fn: (tx: Tx, emit: Emit) => Promise<T>): Promise<T> {
  const queued: DomainEvent[] = [];
  let deliveries = 0;
  let rev: Record<string, number> | null = null;
  const result = await getDb().transaction(async (tx) => {
    const r = await fn(tx, (e) => queued.push(e));
    if (queued.length) deliveries = await enqueueWebhookDeliveries(tx, queued);
    if (queued.length) rev = await bumpRevisions(tx, queued);
    return r;
  });
  if (deliveries) kickOutbox();
  if (queued.length) {
    const at = Date.now();
    dispatch(queued);
    await notifyOtherProcesses(queued, at, rev).catch((err) => console.error("[events] NOTIFY failed:", describeError(err)));
  }
  return result;
}
