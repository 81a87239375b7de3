import { index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { users } from "./users";

/**
 * Server-side sessions. The cookie holds a random token; only its SHA-256 is stored, so a
 * database leak does not hand out live sessions.
 */
export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** "password_verified" | "mfa_verified" (docs/api.md session states) */
    state: text("state").notNull(),
    ip: text("ip"),
    userAgent: text("user_agent"),
    /** Short-lived per-session data (MFA challenges, pending OIDC authorization, ...). */
    data: jsonb("data").$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("sessions_user_idx").on(t.userId), index("sessions_expires_idx").on(t.expiresAt)],
);

/** Failed sign-in attempts per (lower-cased) login name, for the lockout rule. */
export const loginFailures = pgTable(
  "login_failures",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    login: text("login").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("login_failures_login_at_idx").on(t.login, t.at)],
);

export const loginLockouts = pgTable("login_lockouts", {
  login: text("login").primaryKey(),
  lockedUntil: timestamp("locked_until", { withTimezone: true }).notNull(),
});
