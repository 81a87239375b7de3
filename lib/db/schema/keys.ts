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
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // One key once per user and type (md5: a GPG key block is too long for a plain btree entry).
    uniqueIndex("authentication_keys_unique_idx").on(t.userId, t.keyType, sql`md5(${t.key})`),
  ],
);
