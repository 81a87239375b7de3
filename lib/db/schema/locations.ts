import { bigint, boolean, index, integer, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { groups, users } from "./users";

/** A WireGuard location (defguard: "network"). */
export const locations = pgTable(
  "locations",
  {
    id: serial("id").primaryKey(),
    name: text("name").notNull(),
    /** The location's own addresses with netmask, e.g. ["10.1.0.1/24", "fd00::1/64"]; the first is primary. */
    address: text("address").array().notNull(),
    port: integer("port").notNull(),
    /** Public host name or IP the clients connect to. */
    endpoint: text("endpoint").notNull(),
    allowedIps: text("allowed_ips").array().notNull().default([]),
    dns: text("dns"),
    pubkey: text("pubkey").notNull(),
    /** The interface private key, AES-256-GCM encrypted; only the location's gateway receives it. */
    prvkeyEnc: text("prvkey_enc").notNull(),
    keepaliveInterval: integer("keepalive_interval").notNull().default(25),
    peerDisconnectThreshold: integer("peer_disconnect_threshold").notNull().default(300),
    aclEnabled: boolean("acl_enabled").notNull().default(false),
    aclDefaultAllow: boolean("acl_default_allow").notNull().default(false),
    /** "disabled" | "internal" | "external" */
    mfaMode: text("location_mfa_mode").notNull().default("disabled"),
    /** Gateway tokens older than this generation are revoked ("Regenerate token" increments it). */
    gatewayTokenGeneration: integer("gateway_token_generation").notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("locations_name_idx").on(t.name)],
);

/** Groups allowed to use a location; none means everybody. */
export const locationGroups = pgTable(
  "location_allowed_groups",
  {
    locationId: integer("location_id")
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
    groupId: integer("group_id")
      .notNull()
      .references(() => groups.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.locationId, t.groupId] }), index("location_groups_group_idx").on(t.groupId)],
);

/** User devices and standalone network devices. */
export const devices = pgTable(
  "devices",
  {
    id: serial("id").primaryKey(),
    name: text("name").notNull(),
    /** Null only for a network device waiting for its CLI enrolment (configured = false). */
    wireguardPubkey: text("wireguard_pubkey"),
    /** Owner: the user (user devices) or the admin who added it (network devices). */
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    description: text("description"),
    /** "user" | "network" */
    deviceType: text("device_type").notNull().default("user"),
    configured: boolean("configured").notNull().default(true),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("devices_pubkey_idx").on(t.wireguardPubkey),
    uniqueIndex("devices_user_name_idx").on(t.userId, t.deviceType, t.name),
    index("devices_type_idx").on(t.deviceType),
  ],
);

/** A device's addresses in one location (one per location CIDR) and its MFA authorisation. */
export const deviceLocations = pgTable(
  "device_locations",
  {
    deviceId: integer("device_id")
      .notNull()
      .references(() => devices.id, { onDelete: "cascade" }),
    locationId: integer("location_id")
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
    ips: text("ips").array().notNull(),
    presharedKey: text("preshared_key"),
    isAuthorized: boolean("is_authorized").notNull().default(false),
    authorizedAt: timestamp("authorized_at", { withTimezone: true }),
    // Last facts reported by a gateway (cumulative counters as the interface reports them).
    uploadTotal: bigint("upload_total", { mode: "number" }).notNull().default(0),
    downloadTotal: bigint("download_total", { mode: "number" }).notNull().default(0),
    lastHandshake: timestamp("last_handshake", { withTimezone: true }),
    lastEndpoint: text("last_endpoint"),
    /** Presence, kept by the presence job: handshake younger than peer_disconnect_threshold. */
    connected: boolean("connected").notNull().default(false),
    connectedAt: timestamp("connected_at", { withTimezone: true }),
    /** When the last stats sample of this device in this location was written (ingest). */
    lastSampleAt: timestamp("last_sample_at", { withTimezone: true }),
  },
  (t) => [primaryKey({ columns: [t.deviceId, t.locationId] }), index("device_locations_location_idx").on(t.locationId)],
);
