import { sql } from "drizzle-orm";
import { index, integer, pgTable, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { users } from "./users";

/**
 * API tokens of admins (`Authorization: Bearer dg-…`). Only the SHA-256 of the token is kept;
 * the token itself is shown once, when it is made.
 */
export const apiTokens = pgTable(
  "api_tokens",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    tokenHash: text("token_hash").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** Last request made with the token, to the minute (the stale-access report reads it). */
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("api_tokens_hash_idx").on(t.tokenHash), index("api_tokens_user_idx").on(t.userId)],
);

/** A YubiKey provisioned by a worker (lib/provisioning): its serial; its keys point at it. */
export const yubikeys = pgTable(
  "yubikeys",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    serial: text("serial").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("yubikeys_user_idx").on(t.userId)],
);

/** SSH and GPG public keys of a user ("authentication keys"); the key text as validated. */
export const authenticationKeys = pgTable(
  "authentication_keys",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** "ssh" | "gpg" */
    keyType: text("key_type").notNull(),
    key: text("key").notNull(),
    /** Set for the keys a provisioning worker put on a YubiKey. */
    yubikeyId: integer("yubikey_id").references(() => yubikeys.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // One key once per user and type (md5: a GPG key block is too long for a plain btree entry).
    uniqueIndex("authentication_keys_unique_idx").on(t.userId, t.keyType, sql`md5(${t.key})`),
  ],
);

/** YubiKey provisioning workers (registered over gRPC; docs/gateway-protocol.md). */
export const provisioningWorkers = pgTable("provisioning_workers", {
  id: text("id").primaryKey(),
  ip: text("ip"),
  lastSeen: timestamp("last_seen", { withTimezone: true }),
  registeredAt: timestamp("registered_at", { withTimezone: true }).notNull().defaultNow(),
});

/** Provisioning jobs: pending until the worker reports them done or failed. */
export const provisioningJobs = pgTable(
  "provisioning_jobs",
  {
    id: serial("id").primaryKey(),
    workerId: text("worker_id")
      .notNull()
      .references(() => provisioningWorkers.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** "pending" | "done" | "failed" */
    state: text("state").notNull().default("pending"),
    yubikeySerial: text("yubikey_serial"),
    error: text("error"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
  },
  (t) => [index("provisioning_jobs_worker_idx").on(t.workerId, t.state, t.id)],
);
