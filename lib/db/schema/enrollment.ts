import { index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { devices } from "./locations";
import { users } from "./users";

/**
 * Enrolment and configuration tokens (defguard: "token"). Only the SHA-256 of the token is
 * stored; the token itself is shown once. kind "network_device": a CLI token that lets
 * `dg`/the enrolment endpoints give an unconfigured network device its public key; kind
 * "enrollment": a user's enrolment or desktop-client activation token (POST
 * /user/{username}/start_enrollment, /start_desktop).
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
    /**
     * kind "enrollment": the end of the enrolment session the token opened (used_at is when it
     * was opened). The session may be resumed until then; activating the account ends it early.
     */
    sessionEndsAt: timestamp("session_ends_at", { withTimezone: true }),
  },
  (t) => [index("enrollment_tokens_user_idx").on(t.userId), index("enrollment_tokens_device_idx").on(t.deviceId)],
);

/**
 * Polling tokens of desktop clients (defguard: polling_token): handed out with a device's
 * configuration at enrolment, then sent to POST /poll to fetch the current configuration.
 * Only the SHA-256 is stored; one per device (a new one replaces the old).
 */
export const pollingTokens = pgTable(
  "polling_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    deviceId: integer("device_id")
      .notNull()
      .references(() => devices.id, { onDelete: "cascade" }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("polling_tokens_device_idx").on(t.deviceId)],
);

/**
 * Keys defguard's mobile app registers for a device during its enrolment (POST
 * /enrollment/register_mobile; defguard: biometric_auth): the public key (base64, 32 bytes) the
 * app signs biometric MFA challenges with. One per device; a new registration replaces it.
 */
export const mobileAuthKeys = pgTable("mobile_auth_keys", {
  deviceId: integer("device_id")
    .primaryKey()
    .references(() => devices.id, { onDelete: "cascade" }),
  pubKey: text("pub_key").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});
