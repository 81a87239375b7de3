import { sql } from "drizzle-orm";
import { boolean, index, integer, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

export const users = pgTable(
  "users",
  {
    id: serial("id").primaryKey(),
    username: text("username").notNull(),
    /** argon2id PHC string; null for users created for enrollment or from LDAP/OpenID. */
    passwordHash: text("password_hash"),
    firstName: text("first_name").notNull().default(""),
    lastName: text("last_name").notNull().default(""),
    email: text("email").notNull(),
    phone: text("phone"),
    isActive: boolean("is_active").notNull().default(true),
    enrolled: boolean("enrolled").notNull().default(true),
    mfaEnabled: boolean("mfa_enabled").notNull().default(false),
    /** "None" | "OneTimePassword" | "Webauthn" | "Email" (docs/api.md UserInfo.mfa_method) */
    mfaMethod: text("mfa_method").notNull().default("None"),
    totpEnabled: boolean("totp_enabled").notNull().default(false),
    emailMfaEnabled: boolean("email_mfa_enabled").notNull().default(false),
    ldapPassRequiresChange: boolean("ldap_pass_requires_change").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("users_username_lower_idx").on(sql`lower(${t.username})`),
    uniqueIndex("users_email_lower_idx").on(sql`lower(${t.email})`),
  ],
);

export const groups = pgTable(
  "groups",
  {
    id: serial("id").primaryKey(),
    name: text("name").notNull(),
    isAdmin: boolean("is_admin").notNull().default(false),
  },
  (t) => [uniqueIndex("groups_name_idx").on(t.name)],
);

export const groupUsers = pgTable(
  "group_users",
  {
    groupId: integer("group_id")
      .notNull()
      .references(() => groups.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.userId] }), index("group_users_user_idx").on(t.userId)],
);

/**
 * Change counters for cached lists. Statement triggers (migration 0008) bump "users" whenever
 * users, groups or memberships change, in the changing transaction, so a cached GET /user body
 * is known stale by every console process as soon as the change commits.
 */
export const listVersions = pgTable("list_versions", {
  name: text("name").primaryKey(),
  version: integer("version").notNull().default(0),
});

/**
 * Each user's GET /user entry as JSON text, kept current by triggers (migration 0009) on users,
 * groups and memberships, so the full list is one string_agg instead of 10,000 row_to_json.
 */
export const usersListJson = pgTable("users_list_json", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  body: text("body").notNull(),
  /**
   * The users list version this entry was last written at (migration 0021): a process that
   * holds the list as of version V re-reads only the entries stamped above V.
   */
  stamp: integer("stamp").notNull().default(0),
});
