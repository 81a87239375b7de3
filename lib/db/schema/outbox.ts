import { sql } from "drizzle-orm";
import { bigserial, boolean, index, integer, pgTable, serial, text, timestamp, uuid } from "drizzle-orm/pg-core";

/** Webhooks (defguard's `webhook`): POSTs to `url` on user events. */
export const webhooks = pgTable("webhooks", {
  id: serial("id").primaryKey(),
  url: text("url").notNull(),
  description: text("description").notNull().default(""),
  /** The secret token, encrypted with the instance key (lib/crypto). */
  token: text("token").notNull(),
  enabled: boolean("enabled").notNull().default(true),
  onUserCreated: boolean("on_user_created").notNull().default(false),
  onUserDeleted: boolean("on_user_deleted").notNull().default(false),
  onUserModified: boolean("on_user_modified").notNull().default(false),
  onHwkeyProvision: boolean("on_hwkey_provision").notNull().default(false),
});

/** Activity-log streams (defguard's `activity_log_stream`): NDJSON batches of every activity event. */
export const activityLogStreams = pgTable("activity_log_streams", {
  id: serial("id").primaryKey(),
  name: text("name").notNull(),
  /** "vector_http" | "logstash_http" */
  streamType: text("stream_type").notNull(),
  url: text("url").notNull(),
  username: text("username"),
  /** Basic-auth password, encrypted with the instance key (lib/crypto). */
  password: text("password"),
  /** PEM CA certificate trusted for an https url. */
  cert: text("cert"),
});

/**
 * The delivery outbox (lib/outbox): one row per message to one target, written in the
 * transaction of the change it reports, sent after the commit by any console process.
 * `kind` + `target_id` name a row of `webhooks` ("webhook") or `activity_log_streams` ("stream").
 */
export const outbox = pgTable(
  "outbox",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    kind: text("kind").notNull(),
    targetId: integer("target_id").notNull(),
    /** webhook: x-defguard-event value; stream: the activity event name. */
    event: text("event").notNull(),
    /** The exact body (webhook) or NDJSON line (stream). */
    payload: text("payload").notNull(),
    /** Sent as X-Defguard-Delivery, the same on every attempt. */
    deliveryId: uuid("delivery_id").notNull().defaultRandom(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** "pending" | "delivered" | "failed" */
    state: text("state").notNull().default("pending"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
    /** Retries stop after this moment (created_at + 24 h, renewed by "retry now"). */
    giveUpAt: timestamp("give_up_at", { withTimezone: true }).notNull().default(sql`now() + interval '24 hours'`),
    /** A process sending this row holds it until then (a crashed holder's claim expires). */
    claimedUntil: timestamp("claimed_until", { withTimezone: true }),
    claimToken: text("claim_token"),
    lastAttemptAt: timestamp("last_attempt_at", { withTimezone: true }),
    lastStatus: integer("last_status"),
    lastError: text("last_error"),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
  },
  (t) => [
    index("outbox_target_idx").on(t.kind, t.targetId, t.id),
    index("outbox_pending_idx").on(t.kind, t.targetId, t.id).where(sql`state = 'pending'`),
    index("outbox_delivered_idx").on(t.deliveredAt),
  ],
);

