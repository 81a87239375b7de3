import { boolean, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { users } from "./users";

/** OpenID Connect applications (relying parties) this console signs users in to. */
export const oauth2Clients = pgTable(
  "oauth2_clients",
  {
    id: serial("id").primaryKey(),
    clientId: text("client_id").notNull(),
    /** Encrypted with the instance key (lib/crypto); shown to admins on demand. */
    clientSecret: text("client_secret").notNull(),
    name: text("name").notNull(),
    redirectUri: text("redirect_uri").array().notNull(),
    scope: text("scope").array().notNull(),
    enabled: boolean("enabled").notNull().default(true),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("oauth2_clients_client_id_idx").on(t.clientId)],
);

/** Consent a user gave an application (remembered until revoked or `prompt=consent`). */
export const oauth2Consents = pgTable(
  "oauth2_consents",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    clientId: integer("client_id")
      .notNull()
      .references(() => oauth2Clients.id, { onDelete: "cascade" }),
    scope: text("scope").array().notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.clientId] }), index("oauth2_consents_client_idx").on(t.clientId)],
);

/**
 * Everything oidc-provider stores (codes, tokens, grants, interactions, sessions), keyed by model
 * and id, so any console process can continue a flow another one started.
 */
export const oidcPayloads = pgTable(
  "oidc_payloads",
  {
    model: text("model").notNull(),
    id: text("id").notNull(),
    payload: jsonb("payload").$type<Record<string, unknown>>().notNull(),
    grantId: text("grant_id"),
    uid: text("uid"),
    userCode: text("user_code"),
    accountId: text("account_id"),
    clientId: text("client_id"),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    consumedAt: timestamp("consumed_at", { withTimezone: true }),
  },
  (t) => [
    primaryKey({ columns: [t.model, t.id] }),
    index("oidc_payloads_grant_idx").on(t.grantId),
    index("oidc_payloads_uid_idx").on(t.uid),
    index("oidc_payloads_user_code_idx").on(t.userCode),
    index("oidc_payloads_account_client_idx").on(t.accountId, t.clientId),
    index("oidc_payloads_expires_idx").on(t.expiresAt),
  ],
);

/** Signing keys (private JWK encrypted with the instance key). Retired keys stay published until `unpublishAt`. */
export const oidcKeys = pgTable("oidc_keys", {
  kid: text("kid").primaryKey(),
  alg: text("alg").notNull(),
  privateJwk: text("private_jwk").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  retiredAt: timestamp("retired_at", { withTimezone: true }),
  unpublishAt: timestamp("unpublish_at", { withTimezone: true }),
});
