import { bigint, bigserial, boolean, doublePrecision, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { gateways } from "./gateways";
import { locations } from "./locations";

/**
 * Per location: the revision its gateways must enforce (bumped in the transaction of every change
 * that produces a gateway update, lib/events/revisions.ts) and its sync settings (migration 0034).
 */
export const locationSync = pgTable("location_sync", {
  locationId: integer("location_id")
    .primaryKey()
    .references(() => locations.id, { onDelete: "cascade" }),
  revision: bigint("revision", { mode: "number" }).notNull().default(0),
  /** Repair drift found by a gateway's state report automatically. */
  autoRepair: boolean("auto_repair").notNull().default(true),
  /** The overview shows an alert line when the last hour's p95 propagation exceeds this. */
  propagationAlertMs: integer("propagation_alert_ms").notNull().default(1000),
});

/** When each revision was committed (pruned after a day). */
export const locationRevisionLog = pgTable(
  "location_revision_log",
  {
    locationId: integer("location_id")
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
    revision: bigint("revision", { mode: "number" }).notNull(),
    committedAt: timestamp("committed_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.locationId, t.revision] })],
);

/** Per gateway: the last revision it confirmed and what its last state report showed. */
export const gatewaySync = pgTable("gateway_sync", {
  gatewayId: integer("gateway_id")
    .primaryKey()
    .references(() => gateways.id, { onDelete: "cascade" }),
  appliedRevision: bigint("applied_revision", { mode: "number" }),
  appliedAt: timestamp("applied_at", { withTimezone: true }),
  reportedAt: timestamp("reported_at", { withTimezone: true }),
  /** Set while the last state report differed from the expected state at the same revision. */
  driftSince: timestamp("drift_since", { withTimezone: true }),
  drift: jsonb("drift"),
  repairRequestedAt: timestamp("repair_requested_at", { withTimezone: true }),
});

/** Commit-to-acknowledgement time of each change per gateway (pruned after a day). */
export const gatewayPropagation = pgTable(
  "gateway_propagation",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    locationId: integer("location_id")
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
    hostname: text("hostname").notNull(),
    revision: bigint("revision", { mode: "number" }).notNull(),
    seconds: doublePrecision("seconds").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("gateway_propagation_location_at_idx").on(t.locationId, t.at)],
);
