import { index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { devices } from "./locations";
import { users } from "./users";

/**
 * Enrolment and configuration tokens (defguard: "token"). Only the SHA-256 of the token is
 * stored; the token itself is shown once. kind "network_device": a CLI token that lets
 * `dg`/the enrolment endpoints give an unconfigured network device its public key.
 */
export const enrollmentTokens = pgTable(
  "enrollment_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    kind: text("kind").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    adminId: integer("admin_id").references(() => users.id, { onDelete: "set null" }),
    deviceId: integer("device_id").references(() => devices.id, { onDelete: "cascade" }),
    email: text("email"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
  },
  (t) => [index("enrollment_tokens_user_idx").on(t.userId), index("enrollment_tokens_device_idx").on(t.deviceId)],
);
