import { getDb, type Tx } from "../db";

/**
 * Domain events, published only after the transaction that produced them commits, so a
 * consumer (webhooks, gateways) never sees a change that was rolled back.
 */
export type DomainEvent =
  | { type: "user.created"; userId: number; username: string }
  | { type: "user.modified"; userId: number; username: string }
  | { type: "user.deleted"; userId: number; username: string }
  | { type: "user.disabled"; userId: number; username: string }
  | { type: "group.changed"; groupId: number; name: string };

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
        .catch((err) => console.error(`[events] handler failed for ${e.type}:`, err));
    }
  }
}

export type Emit = (e: DomainEvent) => void;

/** Run `fn` in one transaction; events it emits are dispatched after a successful commit. */
export async function transaction<T>(fn: (tx: Tx, emit: Emit) => Promise<T>): Promise<T> {
  const queued: DomainEvent[] = [];
  const result = await getDb().transaction((tx) => fn(tx, (e) => queued.push(e)));
  dispatch(queued);
  return result;
}
