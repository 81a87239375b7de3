import { index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
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
    /**
     * When this session last proved the password or a second factor (sign-in, its MFA step,
     * POST /auth/reauth). Changing sign-in security needs it to be recent ("sudo mode").
     */
    reauthAt: timestamp("reauth_at", { withTimezone: true }),
  },
  (t) => [index("sessions_user_idx").on(t.userId), index("sessions_expires_idx").on(t.expiresAt)],
);

/**
 * Failed sign-in attempts (password or second factor) per (lower-cased) login and client
 * address, for the sign-in throttling rules in lib/auth/throttle.ts.
 */
export const loginFailures = pgTable(
  "login_failures",
  {
    id: integer("id").primaryKey().generatedAlwaysAsIdentity(),
    login: text("login").notNull(),
    /** Client address ("" when unknown). */
    ip: text("ip").notNull().default(""),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("login_failures_login_at_idx").on(t.login, t.at), index("login_failures_ip_at_idx").on(t.ip, t.at)],
);

/** Account-wide locks: only after many failures from many addresses, and short. */
export const loginLockouts = pgTable("login_lockouts", {
  login: text("login").primaryKey(),
  lockedUntil: timestamp("locked_until", { withTimezone: true }).notNull(),
});

/**
 * Blocks of one client address: for one login (`login` set) or for every login (`login` "").
 * A block is never extended by attempts made while it holds.
 */
export const signInBlocks = pgTable(
  "sign_in_blocks",
  {
    ip: text("ip").notNull(),
    login: text("login").notNull().default(""),
    blockedUntil: timestamp("blocked_until", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.ip, t.login] })],
);
