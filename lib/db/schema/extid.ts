import { boolean, integer, pgTable, serial, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { users } from "./users";

/**
 * The external OpenID provider (one row at most, as defguard: "one provider at a time"), its
 * directory-sync credentials and the last sync's outcome. Secrets are AES-256-GCM encrypted
 * with the instance key (lib/crypto.ts) and never answered.
 */
export const openidProvider = pgTable(
  "openid_provider",
  {
    id: serial("id").primaryKey(),
    /** "Google" | "Microsoft" | "Okta" | "JumpCloud" | "Custom" (defguard's preset names). */
    name: text("name").notNull(),
    baseUrl: text("base_url").notNull(),
    clientId: text("client_id").notNull(),
    clientSecretEnc: text("client_secret_enc"),
    displayName: text("display_name"),
    scopes: text("scopes").array().notNull().default(sql`'{openid,email,profile}'`),
    googleServiceAccountKeyEnc: text("google_service_account_key_enc"),
    googleServiceAccountEmail: text("google_service_account_email"),
    adminEmail: text("admin_email"),
    directorySyncEnabled: boolean("directory_sync_enabled").notNull().default(false),
    directorySyncInterval: integer("directory_sync_interval").notNull().default(600),
    /** "keep" | "disable" | "delete" */
    directorySyncUserBehavior: text("directory_sync_user_behavior").notNull().default("keep"),
    directorySyncAdminBehavior: text("directory_sync_admin_behavior").notNull().default("keep"),
    /** "all" | "users" | "groups" */
    directorySyncTarget: text("directory_sync_target").notNull().default("all"),
    oktaPrivateJwkEnc: text("okta_private_jwk_enc"),
    oktaDirsyncClientId: text("okta_dirsync_client_id"),
    directorySyncGroupMatch: text("directory_sync_group_match").array().notNull().default(sql`'{}'`),
    jumpcloudApiKeyEnc: text("jumpcloud_api_key_enc"),
    prefetchUsers: boolean("prefetch_users").notNull().default(false),
    /** Desktop-client MFA through this provider (used by the client-MFA flow). */
    useOpenidForClientMfa: boolean("use_openid_for_client_mfa").notNull().default(false),
    lastSyncAt: timestamp("last_sync_at", { withTimezone: true }),
    lastSyncOk: boolean("last_sync_ok"),
    lastSyncResult: text("last_sync_result"),
    lastSyncError: text("last_sync_error"),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("openid_provider_name_idx").on(t.name)],
);

/** A user's subject at the external provider (defguard's `openid_sub`), one per user. */
export const userOpenidIdentities = pgTable(
  "user_openid_identities",
  {
    userId: integer("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    sub: text("sub").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("user_openid_identities_sub_idx").on(t.sub)],
);
