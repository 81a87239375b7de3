import "server-only";
import { sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { webhooks } from "../db/schema";
import { decryptSecret, encryptSecret } from "../crypto";
import { notFound } from "../errors";
import { parseId } from "../validation";
import { transaction } from "../events";
import { recordActivity, type Actor } from "../activity/service";
import { kickOutbox } from "../outbox/worker";
import type { WebhookInput } from "./schema";

/**
 * Webhooks (defguard's `/webhook`). The token is encrypted at rest and, as defguard does, shown
 * to admins in the API answers (the receiver's shared secret must be copyable); it is never
 * written to a log. Deliveries go through lib/outbox.
 */
export interface Webhook {
  id: number;
  url: string;
  description: string;
  token: string;
  enabled: boolean;
  on_user_created: boolean;
  on_user_deleted: boolean;
  on_user_modified: boolean;
  on_hwkey_provision: boolean;
}

type Row = typeof webhooks.$inferSelect;

function toWire(r: Row): Webhook {
  return {
    id: r.id,
    url: r.url,
    description: r.description,
    token: decryptSecret(r.token),
    enabled: r.enabled,
    on_user_created: r.onUserCreated,
    on_user_deleted: r.onUserDeleted,
    on_user_modified: r.onUserModified,
    on_hwkey_provision: r.onHwkeyProvision,
  };
}

function columns(input: WebhookInput) {
  return {
    url: input.url,
    description: input.description,
    token: encryptSecret(input.token),
    enabled: input.enabled,
    onUserCreated: input.on_user_created,
    onUserDeleted: input.on_user_deleted,
    onUserModified: input.on_user_modified,
    onHwkeyProvision: input.on_hwkey_provision,
  };
}

/** A path id: 400 when it is not a number, 404 (via the lookups) when no webhook has it. */
export const webhookId = (raw: string): number => parseId(raw);

async function findRow(tx: Tx, id: number, lock = false): Promise<Row> {
  const r = await tx.execute<Row>(sql`select id, url, description, token, enabled,
      on_user_created "onUserCreated", on_user_deleted "onUserDeleted", on_user_modified "onUserModified", on_hwkey_provision "onHwkeyProvision"
    from webhooks where id = ${id} ${lock ? sql`for update` : sql``}`);
  if (!r.rows[0]) throw notFound("webhook not found");
  return r.rows[0];
}

export async function listWebhooks(): Promise<Webhook[]> {
  const rows = await getDb().select().from(webhooks).orderBy(webhooks.id);
  return rows.map(toWire);
}

export async function getWebhook(rawId: string): Promise<Webhook> {
  return toWire(await findRow(getDb(), webhookId(rawId)));
}

export async function createWebhook(actor: Actor, input: WebhookInput): Promise<Webhook> {
  return transaction(async (tx) => {
    const [row] = await tx.insert(webhooks).values(columns(input)).returning();
    await recordActivity(tx, actor, { event: "web_hook_added", description: `Webhook ${row.url} added` });
    return toWire(row);
  });
}

export async function updateWebhook(actor: Actor, rawId: string, input: WebhookInput): Promise<Webhook> {
  const id = webhookId(rawId);
  return transaction(async (tx) => {
    await findRow(tx, id, true);
    const [row] = await tx.update(webhooks).set(columns(input)).where(sql`${webhooks.id} = ${id}`).returning();
    await recordActivity(tx, actor, { event: "web_hook_modified", description: `Webhook ${row.url} modified` });
    return toWire(row);
  });
}

export async function setWebhookEnabled(actor: Actor, rawId: string, enabled: boolean): Promise<void> {
  const id = webhookId(rawId);
  await transaction(async (tx) => {
    const row = await findRow(tx, id, true);
    await tx.update(webhooks).set({ enabled }).where(sql`${webhooks.id} = ${id}`);
    await recordActivity(tx, actor, { event: "web_hook_state_changed", description: `Webhook ${row.url} ${enabled ? "enabled" : "disabled"}` });
  });
}

/** Delete the webhook and its queued and logged deliveries. */
export async function deleteWebhook(actor: Actor, rawId: string): Promise<void> {
  const id = webhookId(rawId);
  await transaction(async (tx) => {
    const row = await findRow(tx, id, true);
    await tx.delete(webhooks).where(sql`${webhooks.id} = ${id}`);
    await tx.execute(sql`delete from outbox where kind = 'webhook' and target_id = ${id}`);
    await recordActivity(tx, actor, { event: "web_hook_removed", description: `Webhook ${row.url} removed` });
  });
}

/** One row of a webhook's delivery log. */
export type Delivery = {
  id: string;
  event: string;
  /** "pending" | "delivered" | "failed" */
  state: string;
  attempts: number;
  created_at: string;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  delivered_at: string | null;
  response_code: number | null;
  error: string | null;
};

export const DELIVERY_LOG_SIZE = 100;

/** GET /webhook/{id}/delivery: the last 100 deliveries, newest first. */
export async function listDeliveries(rawId: string): Promise<Delivery[]> {
  const id = webhookId(rawId);
  await findRow(getDb(), id);
  const r = await getDb().execute<Delivery>(sql`
    select delivery_id::text id, event, state, attempts,
           to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') created_at,
           to_char(last_attempt_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') last_attempt_at,
           case when state = 'pending' then to_char(next_attempt_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') end next_attempt_at,
           to_char(delivered_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') delivered_at,
           last_status response_code, last_error error
      from outbox where kind = 'webhook' and target_id = ${id}
     order by id desc limit ${DELIVERY_LOG_SIZE}`);
  return r.rows;
}

/**
 * POST /webhook/{id}/delivery/{delivery}/retry: send a pending or failed delivery now (a
 * failed one gets a new 24-hour retry window). A delivered one is left alone (404).
 */
export async function retryDelivery(rawId: string, deliveryId: string): Promise<void> {
  const id = webhookId(rawId);
  if (!/^[0-9a-f-]{36}$/i.test(deliveryId)) throw notFound("delivery not found");
  const r = await transaction((tx) => tx.execute(sql`
    update outbox set state = 'pending', next_attempt_at = now(),
           give_up_at = case when state = 'failed' then now() + interval '24 hours' else give_up_at end
     where kind = 'webhook' and target_id = ${id} and delivery_id = ${deliveryId}::uuid and state <> 'delivered'
     returning id`));
  if (!r.rowCount) throw notFound("delivery not found");
  kickOutbox();
}
