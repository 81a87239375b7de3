import "server-only";
/**
 * External OpenID provider settings (Settings → OpenID): one provider at a time, as defguard.
 * The answers follow defguard 1.6's `OpenIdProvider` wire shape except that secrets are never
 * sent back: `client_secret`, `google_service_account_key`, `okta_private_jwk` and
 * `jumpcloud_api_key` are null, and `*_set` flags say whether one is stored.
 */
import { createPrivateKey } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { locations, openidProvider, settings } from "../db/schema";
import { decryptSecret, encryptSecret } from "../crypto";
import { badRequest, notFound } from "../errors";
import { transaction } from "../events";
import { recordActivity, type Actor } from "../activity/service";
import { getSettings } from "../settings/service";
import type { ProviderInput } from "./schema";

export type ProviderRow = typeof openidProvider.$inferSelect;

export const MSG = {
  secretRequired: "required when the provider is first set",
  googleKey: "not a Google service-account key (the JSON key file, or its PEM private key)",
  oktaJwk: "not a private JSON Web Key (RSA or EC, with its private part)",
} as const;

export async function getProviderRow(tx: Tx = getDb()): Promise<ProviderRow | null> {
  const [row] = await tx.select().from(openidProvider).orderBy(openidProvider.id).limit(1);
  return row ?? null;
}

/** The decrypted secrets of a provider row (server side only). */
export function providerSecrets(row: ProviderRow) {
  const dec = (v: string | null) => (v ? decryptSecret(v) : null);
  return {
    clientSecret: dec(row.clientSecretEnc),
    googleKey: dec(row.googleServiceAccountKeyEnc),
    oktaJwk: dec(row.oktaPrivateJwkEnc),
    jumpcloudKey: dec(row.jumpcloudApiKeyEnc),
  };
}

/** The provider as answered by GET /openid/provider (no secret values). */
export function providerView(row: ProviderRow) {
  return {
    id: row.id,
    name: row.name,
    base_url: row.baseUrl,
    client_id: row.clientId,
    client_secret: null,
    display_name: row.displayName,
    google_service_account_key: null,
    google_service_account_email: row.googleServiceAccountEmail,
    admin_email: row.adminEmail,
    directory_sync_enabled: row.directorySyncEnabled,
    directory_sync_interval: row.directorySyncInterval,
    directory_sync_user_behavior: row.directorySyncUserBehavior,
    directory_sync_admin_behavior: row.directorySyncAdminBehavior,
    directory_sync_target: row.directorySyncTarget,
    okta_private_jwk: null,
    okta_dirsync_client_id: row.oktaDirsyncClientId,
    directory_sync_group_match: row.directorySyncGroupMatch,
    jumpcloud_api_key: null,
    prefetch_users: row.prefetchUsers,
    // ours
    scopes: row.scopes,
    use_openid_for_client_mfa: row.useOpenidForClientMfa,
    client_secret_set: Boolean(row.clientSecretEnc),
    google_service_account_key_set: Boolean(row.googleServiceAccountKeyEnc),
    okta_private_jwk_set: Boolean(row.oktaPrivateJwkEnc),
    jumpcloud_api_key_set: Boolean(row.jumpcloudApiKeyEnc),
    directory_sync_status: {
      last_sync_at: row.lastSyncAt ? row.lastSyncAt.toISOString() : null,
      ok: row.lastSyncOk,
      result: row.lastSyncResult,
      error: row.lastSyncError,
    },
  };
}
export type ProviderView = ReturnType<typeof providerView>;

/** GET /openid/provider: `{provider, settings}`; 204 semantics (no provider) are the route's. */
export async function currentProvider() {
  const [row, s] = await Promise.all([getProviderRow(), getSettings()]);
  return {
    provider: row ? providerView(row) : null,
    settings: { create_account: s.openidCreateAccount, username_handling: s.openidUsernameHandling },
  };
}

/**
 * A Google service-account key as pasted: the JSON key file (its `private_key` and
 * `client_email`) or the PEM private key alone. Refused with 400 when it is neither.
 */
export function parseGoogleKey(text: string): { privateKey: string; clientEmail: string | null } {
  let pem = text;
  let clientEmail: string | null = null;
  if (text.trim().startsWith("{")) {
    let parsed: { private_key?: unknown; client_email?: unknown };
    try {
      parsed = JSON.parse(text);
    } catch {
      throw badRequest(MSG.googleKey, "google_service_account_key");
    }
    if (typeof parsed.private_key !== "string") throw badRequest(MSG.googleKey, "google_service_account_key");
    pem = parsed.private_key;
    clientEmail = typeof parsed.client_email === "string" ? parsed.client_email : null;
  }
  try {
    const key = createPrivateKey({ key: pem, format: "pem" });
    if (key.asymmetricKeyType !== "rsa") throw new Error("not RSA");
  } catch {
    throw badRequest(MSG.googleKey, "google_service_account_key");
  }
  return { privateKey: pem, clientEmail };
}

/** An Okta private JWK (RSA or EC with its private part `d`), refused with 400 otherwise. */
export function parseOktaJwk(text: string): Record<string, unknown> {
  try {
    const jwk = JSON.parse(text) as Record<string, unknown>;
    if (typeof jwk.d !== "string" || (jwk.kty !== "RSA" && jwk.kty !== "EC")) throw new Error("no private part");
    createPrivateKey({ key: jwk as never, format: "jwk" });
    return jwk;
  } catch {
    throw badRequest(MSG.oktaJwk, "okta_private_jwk");
  }
}

/** POST /openid/provider: create or replace the provider (one at a time) and its sign-in settings. */
export async function saveProvider(actor: Actor, input: ProviderInput): Promise<ProviderView> {
  // Check the keys before anything is written.
  const google = input.google_service_account_key ? parseGoogleKey(input.google_service_account_key) : null;
  if (input.okta_private_jwk) parseOktaJwk(input.okta_private_jwk);
  return transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(7241013)`);
    const current = await getProviderRow(tx);
    if (!current && !input.client_secret) throw badRequest(MSG.secretRequired, "client_secret");
    const enc = (v: string | null, stored: string | null | undefined) => (v ? encryptSecret(v) : (stored ?? null));
    const values = {
      name: input.name,
      baseUrl: input.base_url,
      clientId: input.client_id,
      clientSecretEnc: enc(input.client_secret, current?.clientSecretEnc),
      displayName: input.display_name,
      scopes: input.scopes,
      googleServiceAccountKeyEnc: enc(google?.privateKey ?? null, current?.googleServiceAccountKeyEnc),
      googleServiceAccountEmail: input.google_service_account_email ?? google?.clientEmail ?? null,
      adminEmail: input.admin_email,
      directorySyncEnabled: input.directory_sync_enabled,
      directorySyncInterval: input.directory_sync_interval,
      directorySyncUserBehavior: input.directory_sync_user_behavior,
      directorySyncAdminBehavior: input.directory_sync_admin_behavior,
      directorySyncTarget: input.directory_sync_target,
      oktaPrivateJwkEnc: enc(input.okta_private_jwk, current?.oktaPrivateJwkEnc),
      oktaDirsyncClientId: input.okta_dirsync_client_id,
      directorySyncGroupMatch: input.directory_sync_group_match,
      jumpcloudApiKeyEnc: enc(input.jumpcloud_api_key, current?.jumpcloudApiKeyEnc),
      prefetchUsers: input.prefetch_users,
      useOpenidForClientMfa: input.use_openid_for_client_mfa,
      updatedAt: new Date(),
    };
    const [row] = current
      ? await tx.update(openidProvider).set(values).where(eq(openidProvider.id, current.id)).returning()
      : await tx.insert(openidProvider).values(values).returning();
    await getSettings(tx);
    await tx
      .update(settings)
      .set({ openidCreateAccount: input.create_account, openidUsernameHandling: input.username_handling })
      .where(eq(settings.id, 1));
    await recordActivity(tx, actor, {
      event: "open_id_provider_modified",
      description: `${current ? "Modified" : "Added"} external OpenID provider ${row.name} (${row.baseUrl})`,
    });
    return providerView(row);
  });
}

/**
 * DELETE /openid/provider/{name}: 404 when no provider has that name. Locations whose client
 * MFA went through this provider fall back to the console's own MFA, as defguard does.
 */
export async function deleteProvider(actor: Actor, name: string): Promise<void> {
  await transaction(async (tx, emit) => {
    const [row] = await tx.delete(openidProvider).where(eq(openidProvider.name, name)).returning();
    if (!row) throw notFound(`no OpenID provider named ${name}`);
    const moved = await tx.update(locations).set({ mfaMode: "internal" }).where(eq(locations.mfaMode, "external")).returning({ id: locations.id, name: locations.name });
    for (const l of moved) emit({ type: "location.changed", locationId: l.id });
    await recordActivity(tx, actor, {
      event: "open_id_provider_removed",
      description: `Removed external OpenID provider ${row.name}${moved.length ? `; locations back on the console's MFA: ${moved.map((m) => m.name).join(", ")}` : ""}`,
    });
  });
}
