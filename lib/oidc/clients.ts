import "server-only";
/** OpenID apps (defguard's OpenidClient), consents and the apps a user authorised. */
import { and, asc, eq, sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { oauth2Clients, oauth2Consents } from "../db/schema";
import { decryptSecret, encryptSecret, randomToken } from "../crypto";
import { notFound } from "../errors";
import { recordActivity, type Actor } from "../activity/service";
import { transaction } from "../events";
import { requireUserId } from "../users/service";
import type { OpenidClientInput } from "./schema";
import { revokeIssued } from "./adapter";

export interface OpenidClient {
  id: number;
  client_id: string;
  client_secret: string;
  name: string;
  redirect_uri: string[];
  scope: string[];
  enabled: boolean;
}

type Row = typeof oauth2Clients.$inferSelect;

function toWire(r: Row): OpenidClient {
  return {
    id: r.id,
    client_id: r.clientId,
    client_secret: decryptSecret(r.clientSecret),
    name: r.name,
    redirect_uri: r.redirectUri,
    scope: r.scope,
    enabled: r.enabled,
  };
}

export async function findClientRow(clientId: string, tx: Tx = getDb()): Promise<Row | null> {
  const [row] = await tx.select().from(oauth2Clients).where(eq(oauth2Clients.clientId, clientId));
  return row ?? null;
}

async function requireClient(tx: Tx, clientId: string): Promise<Row> {
  const row = await findClientRow(clientId, tx);
  if (!row) throw notFound("OpenID app not found");
  return row;
}

/** oidc-provider client metadata for an enabled app (undefined: unknown or disabled). */
export async function clientMetadata(clientId: string) {
  const row = await findClientRow(clientId);
  if (!row || !row.enabled) return null;
  return {
    client_id: row.clientId,
    client_secret: decryptSecret(row.clientSecret),
    client_name: row.name,
    redirect_uris: row.redirectUri,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "client_secret_basic",
    scope: ["offline_access", ...row.scope].join(" "),
  };
}

export async function listClients(): Promise<OpenidClient[]> {
  const rows = await getDb().select().from(oauth2Clients).orderBy(asc(oauth2Clients.name), asc(oauth2Clients.id));
  return rows.map(toWire);
}

export async function getClient(clientId: string): Promise<OpenidClient> {
  return toWire(await requireClient(getDb(), clientId));
}

export async function createClient(actor: Actor, input: OpenidClientInput): Promise<OpenidClient> {
  return transaction(async (tx) => {
    const [row] = await tx
      .insert(oauth2Clients)
      .values({
        clientId: randomToken(12),
        clientSecret: encryptSecret(randomToken(32)),
        name: input.name,
        redirectUri: [...new Set(input.redirect_uri)],
        scope: [...new Set(input.scope)],
        enabled: input.enabled,
      })
      .returning();
    await recordActivity(tx, actor, { event: "open_id_app_added", description: `OpenID app ${row.name} added` });
    return toWire(row);
  });
}

export async function updateClient(actor: Actor, clientId: string, input: OpenidClientInput): Promise<OpenidClient> {
  const out = await transaction(async (tx) => {
    await requireClient(tx, clientId);
    const [row] = await tx
      .update(oauth2Clients)
      .set({ name: input.name, redirectUri: [...new Set(input.redirect_uri)], scope: [...new Set(input.scope)], enabled: input.enabled })
      .where(eq(oauth2Clients.clientId, clientId))
      .returning();
    await recordActivity(tx, actor, { event: "open_id_app_modified", description: `OpenID app ${row.name} modified` });
    return toWire(row);
  });
  return out;
}

export async function setClientEnabled(actor: Actor, clientId: string, enabled: boolean): Promise<void> {
  await transaction(async (tx) => {
    const row = await requireClient(tx, clientId);
    await tx.update(oauth2Clients).set({ enabled }).where(eq(oauth2Clients.id, row.id));
    await recordActivity(tx, actor, {
      event: "open_id_app_state_changed",
      description: `OpenID app ${row.name} ${enabled ? "enabled" : "disabled"}`,
    });
  });
}

/** A new secret; tokens issued with the old one are revoked. */
export async function regenerateSecret(actor: Actor, clientId: string): Promise<OpenidClient> {
  const out = await transaction(async (tx) => {
    const row = await requireClient(tx, clientId);
    const [updated] = await tx
      .update(oauth2Clients)
      .set({ clientSecret: encryptSecret(randomToken(32)) })
      .where(eq(oauth2Clients.id, row.id))
      .returning();
    await recordActivity(tx, actor, { event: "open_id_app_modified", description: `OpenID app ${row.name}: secret regenerated` });
    return toWire(updated);
  });
  await revokeIssued({ clientId });
  return out;
}

export async function deleteClient(actor: Actor, clientId: string): Promise<void> {
  await transaction(async (tx) => {
    const row = await requireClient(tx, clientId);
    await tx.delete(oauth2Clients).where(eq(oauth2Clients.id, row.id));
    await recordActivity(tx, actor, { event: "open_id_app_removed", description: `OpenID app ${row.name} removed` });
  });
  await revokeIssued({ clientId });
}

/** Scopes the user already granted this app (null: never, or revoked). */
export async function consentedScopes(userId: number, clientDbId: number): Promise<string[] | null> {
  const [row] = await getDb()
    .select({ scope: oauth2Consents.scope })
    .from(oauth2Consents)
    .where(and(eq(oauth2Consents.userId, userId), eq(oauth2Consents.clientId, clientDbId)));
  return row?.scope ?? null;
}

export async function giveConsent(actor: Actor, userId: number, client: Row, scope: string[]): Promise<void> {
  await transaction(async (tx) => {
    await tx
      .insert(oauth2Consents)
      .values({ userId, clientId: client.id, scope })
      .onConflictDoUpdate({ target: [oauth2Consents.userId, oauth2Consents.clientId], set: { scope, createdAt: sql`now()` } });
    await recordActivity(tx, actor, {
      event: "open_id_app_consent_given",
      description: `Consent given to OpenID app ${client.name} (${scope.join(" ")})`,
    });
  });
}

/** DELETE /user/{username}/oauth_app/{client_id}: forget the consent and revoke its tokens. */
export async function revokeConsent(actor: Actor, username: string, clientId: string): Promise<void> {
  const userId = await requireUserId(username);
  // defguard's web client names the app by its numeric id (authorized_apps[].oauth2client_id).
  let client = await findClientRow(clientId);
  if (!client && /^\d{1,9}$/.test(clientId)) {
    [client] = await getDb().select().from(oauth2Clients).where(eq(oauth2Clients.id, Number(clientId)));
  }
  if (!client) throw notFound("OpenID app not found");
  await transaction(async (tx) => {
    const gone = await tx
      .delete(oauth2Consents)
      .where(and(eq(oauth2Consents.userId, userId), eq(oauth2Consents.clientId, client.id)))
      .returning({ userId: oauth2Consents.userId });
    if (!gone.length) throw notFound("this user has not authorised that app");
    await recordActivity(tx, actor, {
      event: "open_id_app_consent_revoked",
      description: `Consent to OpenID app ${client.name} revoked for ${username}`,
    });
  });
  await revokeIssued({ accountId: String(userId), clientId: client.clientId });
}

/** UserInfo.authorized_apps: defguard's OAuth2AuthorizedAppInfo. */
export async function authorizedApps(userId: number) {
  const rows = await getDb()
    .select({ id: oauth2Clients.id, name: oauth2Clients.name, userId: oauth2Consents.userId })
    .from(oauth2Consents)
    .innerJoin(oauth2Clients, eq(oauth2Clients.id, oauth2Consents.clientId))
    .where(eq(oauth2Consents.userId, userId))
    .orderBy(asc(oauth2Clients.name));
  return rows.map((r) => ({ oauth2client_id: r.id, oauth2client_name: r.name, user_id: r.userId }));
}
