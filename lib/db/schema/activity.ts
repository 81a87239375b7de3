import { bigserial, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { users } from "./users";

/** One row per recorded event (the events of lib/activity/events.ts). Written by lib/activity only. */
export const activityLog = pgTable(
  "activity_log",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    timestamp: timestamp("timestamp", { withTimezone: true }).notNull().defaultNow(),
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    /** Kept as text so the record survives the user's deletion. */
    username: text("username").notNull(),
    location: text("location"),
    ip: text("ip"),
    event: text("event").notNull(),
    /** "defguard" | "client" | "enrollment" | "vpn" */
    module: text("module").notNull(),
    device: text("device"),
    description: text("description"),
  },
  (t) => [
    index("activity_log_timestamp_idx").on(t.timestamp),
    index("activity_log_username_idx").on(t.username),
    index("activity_log_event_idx").on(t.event),
  ],
);
