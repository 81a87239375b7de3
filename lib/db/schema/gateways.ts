import { bigint, bigserial, boolean, index, integer, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { locations } from "./locations";

/** Gateways seen by the console, one row per (location, hostname). */
export const gateways = pgTable(
  "gateways",
  {
    id: serial("id").primaryKey(),
    locationId: integer("location_id")
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
    hostname: text("hostname").notNull(),
    name: text("name"),
    version: text("version"),
    connected: boolean("connected").notNull().default(false),
    connectedAt: timestamp("connected_at", { withTimezone: true }),
    disconnectedAt: timestamp("disconnected_at", { withTimezone: true }),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }),
    /** When admins were told this gateway is down (cleared when it reconnects). */
    disconnectNotifiedAt: timestamp("disconnect_notified_at", { withTimezone: true }),
    /** Console process holding its update stream (for clean-up after a crash). */
    processId: text("process_id"),
  },
  (t) => [uniqueIndex("gateways_location_host_idx").on(t.locationId, t.hostname)],
);

/**
 * Per-interval transfer of a device in a location, from gateway stats (deltas, not counters).
 * No foreign keys: their per-row checks cost about a third of the ingest rate. Rows go with their
 * device or location through the delete triggers of migration 0008 instead.
 */
export const deviceStats = pgTable(
  "device_stats",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    deviceId: integer("device_id").notNull(),
    locationId: integer("location_id").notNull(),
    collectedAt: timestamp("collected_at", { withTimezone: true }).notNull(),
    upload: bigint("upload", { mode: "number" }).notNull(),
    download: bigint("download", { mode: "number" }).notNull(),
    endpoint: text("endpoint"),
    latestHandshake: timestamp("latest_handshake", { withTimezone: true }),
  },
  (t) => [index("device_stats_location_time_idx").on(t.locationId, t.collectedAt), index("device_stats_device_time_idx").on(t.deviceId, t.collectedAt)],
);

/**
 * Rollups of device_stats (migration 0026): per location and minute (network/location totals
 * and series; kept by the ingest statement) and per device, location and hour (a location's
 * per-device series; folded by a job). Both equal the sums of the samples they cover.
 */
export const statsMinute = pgTable(
  "stats_minute",
  {
    locationId: integer("location_id").notNull(),
    bucket: timestamp("bucket", { withTimezone: true }).notNull(),
    upload: bigint("upload", { mode: "number" }).notNull().default(0),
    download: bigint("download", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ name: "stats_minute_pk", columns: [t.locationId, t.bucket] })],
);

export const statsHour = pgTable(
  "stats_hour",
  {
    locationId: integer("location_id").notNull(),
    bucket: timestamp("bucket", { withTimezone: true }).notNull(),
    deviceId: integer("device_id").notNull(),
    upload: bigint("upload", { mode: "number" }).notNull().default(0),
    download: bigint("download", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ name: "stats_hour_pk", columns: [t.locationId, t.bucket, t.deviceId] })],
);

/** Per device, location and 5 minutes, the last 25 hours (migration 0035; folded with stats_hour). */
export const statsFiveMin = pgTable(
  "stats_5min",
  {
    locationId: integer("location_id").notNull(),
    bucket: timestamp("bucket", { withTimezone: true }).notNull(),
    deviceId: integer("device_id").notNull(),
    upload: bigint("upload", { mode: "number" }).notNull().default(0),
    download: bigint("download", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ name: "stats_5min_pk", columns: [t.locationId, t.bucket, t.deviceId] })],
);

/** One row: the rollups' progress (migrations 0026 and 0035, lib/stats/rollups.ts). */
export const statsRollupState = pgTable("stats_rollup_state", {
  id: integer("id").primaryKey(),
  backfillBelow: bigint("backfill_below", { mode: "number" }),
  hourFrom: bigint("hour_from", { mode: "number" }).notNull(),
  pendingHi: bigint("pending_hi", { mode: "number" }),
  pendingXmax: bigint("pending_xmax", { mode: "number" }),
  fiveFrom: timestamp("five_from", { withTimezone: true }).notNull().default(sql`'-infinity'`),
  fiveHi: bigint("five_hi", { mode: "number" }).notNull().default(1),
});
