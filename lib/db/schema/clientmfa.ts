import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { devices, locations } from "./locations";
import { users } from "./users";

/**
 * A desktop client's MFA login for one location (defguard: the client MFA "login session"),
 * between POST /client-mfa/start and /finish. One per device key: a new start replaces it.
 * Only the SHA-256 of the session token is stored. `method` is defguard's MfaMethod number
 * (0 TOTP, 1 e-mail, 2 OpenID). `openid_auth_completed` is set by the external OpenID
 * callback (method 2) before the client finishes.
 */
export const clientMfaSessions = pgTable(
  "client_mfa_sessions",
  {
    pubkey: text("pubkey").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    deviceId: integer("device_id")
      .notNull()
      .references(() => devices.id, { onDelete: "cascade" }),
    locationId: integer("location_id")
      .notNull()
      .references(() => locations.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    method: integer("method").notNull(),
    openidAuthCompleted: boolean("openid_auth_completed").notNull().default(false),
    /** Wrong codes sent for this login; the login is dropped after MAX_FAILED_ATTEMPTS. */
    failedAttempts: integer("failed_attempts").notNull().default(0),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("client_mfa_sessions_token_idx").on(t.tokenHash), index("client_mfa_sessions_expires_idx").on(t.expiresAt)],
);
