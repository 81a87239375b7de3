import { boolean, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { users } from "./users";

/** The values of a linked user both sides agreed on at the end of the last LDAP sync. */
export interface LdapBase {
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  phone: string;
}

/**
 * Directory entries linked to console users (migration 0025, docs/ldap.md): `base` is the merge
 * base of the two-way sync. `user_id` turns null when the console user is deleted.
 */
export const ldapUsers = pgTable(
  "ldap_users",
  {
    dnKey: text("dn_key").primaryKey(),
    dn: text("dn").notNull(),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    base: jsonb("base").$type<LdapBase>().notNull(),
  },
  (t) => [uniqueIndex("ldap_users_user_idx").on(t.userId)],
);

/** Per group name, the member entries (dn_key) both sides agreed on at the last sync. */
export const ldapGroups = pgTable("ldap_groups", {
  name: text("name").primaryKey(),
  members: text("members").array().notNull().default([]),
});

/** The one row the LDAP screen reads: when the last sync ran and how it ended. */
export const ldapSyncState = pgTable("ldap_sync_state", {
  id: integer("id").primaryKey().default(1),
  lastRunAt: timestamp("last_run_at", { withTimezone: true }),
  lastSuccessAt: timestamp("last_success_at", { withTimezone: true }),
  lastOk: boolean("last_ok"),
  lastErrorKind: text("last_error_kind"),
  lastError: text("last_error"),
  lastSummary: jsonb("last_summary").$type<Record<string, number>>(),
});
