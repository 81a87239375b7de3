import { bigint, boolean, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { users } from "./users";

/** Per-user MFA secrets. The TOTP secret is AES-256-GCM encrypted with the instance key. */
export const mfaSecrets = pgTable("mfa_secrets", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  /** Confirmed TOTP secret (encrypted), or null. */
  totpSecretEnc: text("totp_secret_enc"),
  /** Secret offered by /auth/totp/init, waiting for its first code (encrypted). */
  totpPendingEnc: text("totp_pending_enc"),
  /** Highest accepted TOTP time step: a code can never be used twice. */
  totpLastStep: bigint("totp_last_step", { mode: "number" }),
});

/** One-time e-mail codes (only a hash is kept), for login or for enabling e-mail MFA. */
export const emailCodes = pgTable(
  "email_codes",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** "login" | "setup" */
    purpose: text("purpose").notNull(),
    codeHash: text("code_hash").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
  },
  (t) => [index("email_codes_user_idx").on(t.userId, t.purpose)],
);

/** Recovery codes: 8 per user, shown once, stored as hashes, each usable once. */
export const recoveryCodes = pgTable(
  "recovery_codes",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    codeHash: text("code_hash").notNull(),
    usedAt: timestamp("used_at", { withTimezone: true }),
  },
  (t) => [index("recovery_codes_user_idx").on(t.userId)],
);

/** WebAuthn credentials: public material only (credential id, COSE public key, counter). */
export const webauthnCredentials = pgTable(
  "webauthn_credentials",
  {
    id: serial("id").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    credentialId: text("credential_id").notNull(),
    publicKey: text("public_key").notNull(),
    counter: bigint("counter", { mode: "number" }).notNull().default(0),
    transports: text("transports").array().notNull().default([]),
    backedUp: boolean("backed_up").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("webauthn_credential_id_idx").on(t.credentialId), index("webauthn_user_idx").on(t.userId)],
);
