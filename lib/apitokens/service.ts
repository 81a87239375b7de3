import "server-only";
import { randomInt } from "node:crypto";
import { and, asc, eq, sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { apiTokens, users } from "../db/schema";
import { isAdminSql } from "../auth/session";
import { sha256hex } from "../crypto";
import { forbidden, notFound } from "../errors";
import { recordActivity, type Actor } from "../activity/service";
import { transaction } from "../events";
import type { ApiTokenInfo } from "./schema";

export const API_TOKEN_PREFIX = "dg-";
export const API_TOKEN_RANDOM_LENGTH = 32;
const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

export const MSG = {
  notAdmin: "API tokens can be made only for admins",
  notFound: "API token not found",
  userNotFound: "user not found",
} as const;

/** `dg-` and 32 letters or digits, each drawn uniformly from a CSPRNG (about 190 bits). */
export function generateApiToken(): string {
  let out = API_TOKEN_PREFIX;
  for (let i = 0; i < API_TOKEN_RANDOM_LENGTH; i++) out += ALPHANUMERIC[randomInt(ALPHANUMERIC.length)];
  return out;
}


async function owner(tx: Tx, username: string) {
  const [u] = await tx
    .select({ id: users.id, username: users.username, isAdmin: isAdminSql() })
    .from(users)
    .where(sql`lower(${users.username}) = lower(${username})`);
  if (!u) throw notFound(MSG.userNotFound);
  return u;
}

const info = (r: typeof apiTokens.$inferSelect): ApiTokenInfo => ({ id: r.id, name: r.name, created_at: r.createdAt.toISOString() });

/** GET /user/{username}/api_token: `[{id, name, created_at}]`, oldest first. */
export async function listApiTokens(username: string): Promise<ApiTokenInfo[]> {
  const db = getDb();
  const u = await owner(db, username);
  const rows = await db.select().from(apiTokens).where(eq(apiTokens.userId, u.id)).orderBy(asc(apiTokens.id));
  return rows.map(info);
}

/**
 * POST /user/{username}/api_token {name}: a new token for an admin. The token is answered once
 * (`{token}`); only its SHA-256 is stored.
 */
export async function createApiToken(actor: Actor, username: string, name: string): Promise<{ token: string }> {
  return transaction(async (tx) => {
    const u = await owner(tx, username);
    if (!u.isAdmin) throw forbidden(MSG.notAdmin);
    const token = generateApiToken();
    await tx.insert(apiTokens).values({ userId: u.id, name, tokenHash: sha256hex(token) });
    await recordActivity(tx, actor, { event: "api_token_added", description: `Added API token "${name}" of ${u.username}` });
    return { token };
  });
}

/** POST /user/{username}/api_token/{id}/rename {name}. */
export async function renameApiToken(actor: Actor, username: string, id: number, name: string): Promise<void> {
  await transaction(async (tx) => {
    const u = await owner(tx, username);
    const [old] = await tx.select().from(apiTokens).where(and(eq(apiTokens.id, id), eq(apiTokens.userId, u.id))).for("update");
    if (!old) throw notFound(MSG.notFound);
    await tx.update(apiTokens).set({ name }).where(eq(apiTokens.id, id));
    await recordActivity(tx, actor, { event: "api_token_renamed", description: `Renamed API token "${old.name}" of ${u.username} to "${name}"` });
  });
}

/** DELETE /user/{username}/api_token/{id}: the token stops working at once. */
export async function deleteApiToken(actor: Actor, username: string, id: number): Promise<void> {
  await transaction(async (tx) => {
    const u = await owner(tx, username);
    const [gone] = await tx.delete(apiTokens).where(and(eq(apiTokens.id, id), eq(apiTokens.userId, u.id))).returning();
    if (!gone) throw notFound(MSG.notFound);
    await recordActivity(tx, actor, { event: "api_token_removed", description: `Removed API token "${gone.name}" of ${u.username}` });
  });
}
