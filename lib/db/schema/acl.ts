import { boolean, index, integer, pgTable, primaryKey, serial, text, timestamp, type AnyPgColumn } from "drizzle-orm/pg-core";
import { devices, locations } from "./locations";
import { groups, users } from "./users";

/**
 * ACL rules (docs/acl.md). A pending change of an applied rule is its own row with
 * `parent_id` pointing at the applied one ("modified" or "deleted"); deploying it replaces the
 * parent. Destinations and ports are kept as canonical entries ("192.0.2.0/24", "192.0.2.1",
 * "192.0.2.10-192.0.2.20"; "22", "8000-9000"), protocols as numbers (1, 6, 17).
 */
export const aclRules = pgTable(
  "acl_rules",
  {
    id: serial("id").primaryKey(),
    parentId: integer("parent_id").references((): AnyPgColumn => aclRules.id, { onDelete: "cascade" }),
    /** "new" | "applied" | "modified" | "deleted" | "expired" */
    state: text("state").notNull().default("new"),
    name: text("name").notNull(),
    allNetworks: boolean("all_networks").notNull().default(false),
    allowAllUsers: boolean("allow_all_users").notNull().default(false),
    denyAllUsers: boolean("deny_all_users").notNull().default(false),
    allowAllNetworkDevices: boolean("allow_all_network_devices").notNull().default(false),
    denyAllNetworkDevices: boolean("deny_all_network_devices").notNull().default(false),
    destination: text("destination").array().notNull().default([]),
    ports: text("ports").array().notNull().default([]),
    protocols: integer("protocols").array().notNull().default([]),
    enabled: boolean("enabled").notNull().default(true),
    /** UTC; null = never. */
    expires: timestamp("expires", { withTimezone: true }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("acl_rules_parent_idx").on(t.parentId), index("acl_rules_state_idx").on(t.state)],
);

export const aclAliases = pgTable(
  "acl_aliases",
  {
    id: serial("id").primaryKey(),
    parentId: integer("parent_id").references((): AnyPgColumn => aclAliases.id, { onDelete: "cascade" }),
    /** "applied" | "modified" */
    state: text("state").notNull().default("applied"),
    name: text("name").notNull(),
    /** "destination" | "component" */
    kind: text("kind").notNull().default("destination"),
    destination: text("destination").array().notNull().default([]),
    ports: text("ports").array().notNull().default([]),
    protocols: integer("protocols").array().notNull().default([]),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("acl_aliases_parent_idx").on(t.parentId)],
);

const ruleRef = () =>
  integer("rule_id")
    .notNull()
    .references(() => aclRules.id, { onDelete: "cascade" });

export const aclRuleLocations = pgTable(
  "acl_rule_locations",
  {
    ruleId: ruleRef(),
    locationId: integer("location_id")
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.locationId] }), index("acl_rule_locations_location_idx").on(t.locationId)],
);

export const aclRuleUsers = pgTable(
  "acl_rule_users",
  {
    ruleId: ruleRef(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    allow: boolean("allow").notNull(),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.userId, t.allow] }), index("acl_rule_users_user_idx").on(t.userId)],
);

export const aclRuleGroups = pgTable(
  "acl_rule_groups",
  {
    ruleId: ruleRef(),
    groupId: integer("group_id")
      .notNull()
      .references(() => groups.id, { onDelete: "cascade" }),
    allow: boolean("allow").notNull(),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.groupId, t.allow] }), index("acl_rule_groups_group_idx").on(t.groupId)],
);

export const aclRuleDevices = pgTable(
  "acl_rule_devices",
  {
    ruleId: ruleRef(),
    deviceId: integer("device_id")
      .notNull()
      .references(() => devices.id, { onDelete: "cascade" }),
    allow: boolean("allow").notNull(),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.deviceId, t.allow] }), index("acl_rule_devices_device_idx").on(t.deviceId)],
);

export const aclRuleAliases = pgTable(
  "acl_rule_aliases",
  {
    ruleId: ruleRef(),
    aliasId: integer("alias_id")
      .notNull()
      .references(() => aclAliases.id, { onDelete: "restrict" }),
  },
  (t) => [primaryKey({ columns: [t.ruleId, t.aliasId] }), index("acl_rule_aliases_alias_idx").on(t.aliasId)],
);
