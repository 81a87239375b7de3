import "server-only";
import { and, asc, eq, sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { authenticationKeys, users, yubikeys } from "../db/schema";
import { conflict, notFound } from "../errors";
import { recordActivity, type Actor } from "../activity/service";
import { transaction } from "../events";
import { parseGpgPublicKey } from "./gpg";
import { parseSshPublicKey } from "./ssh";
import type { AuthKeyInfo, AuthKeyInput, AuthKeyType } from "./schema";

export const MSG = {
  notFound: "authentication key not found",
  userNotFound: "user not found",
  exists: "this key is already added",
} as const;

const TYPE_LABEL: Record<AuthKeyType, string> = { ssh: "SSH", gpg: "GPG" };

async function owner(tx: Tx, username: string) {
  const [u] = await tx.select({ id: users.id, username: users.username }).from(users).where(sql`lower(${users.username}) = lower(${username})`);
  if (!u) throw notFound(MSG.userNotFound);
  return u;
}

type YubiKeyRow = { id: number; name: string; serial: string } | null;

const info = (r: typeof authenticationKeys.$inferSelect, y: YubiKeyRow = null): AuthKeyInfo => ({
  id: r.id,
  name: r.name,
  key_type: r.keyType as AuthKeyType,
  key: r.key,
  user_id: r.userId,
  yubikey_serial: y?.serial ?? null,
  yubikey_id: y?.id ?? null,
  yubikey_name: y?.name ?? null,
});

/** The stored form of a key, or 400 {msg, field: "key"} when it does not parse. */
export function normaliseKey(type: AuthKeyType, key: string): string {
  return type === "ssh" ? parseSshPublicKey(key) : parseGpgPublicKey(key);
}

/** GET /user/{username}/auth_key: the user's SSH and GPG keys, oldest first. */
export async function listAuthKeys(username: string): Promise<AuthKeyInfo[]> {
  const db = getDb();
  const u = await owner(db, username);
  const rows = await db
    .select({ k: authenticationKeys, y: { id: yubikeys.id, name: yubikeys.name, serial: yubikeys.serial } })
    .from(authenticationKeys)
    .leftJoin(yubikeys, eq(yubikeys.id, authenticationKeys.yubikeyId))
    .where(eq(authenticationKeys.userId, u.id))
    .orderBy(asc(authenticationKeys.id));
  return rows.map((r) => info(r.k, r.y));
}

/** POST /user/{username}/auth_key {name, key, key_type}: 201 with the stored key; 409 when already added. */
export async function addAuthKey(actor: Actor, username: string, input: AuthKeyInput): Promise<AuthKeyInfo> {
  const key = normaliseKey(input.key_type, input.key);
  return transaction(async (tx) => {
    const u = await owner(tx, username);
    const [dup] = await tx
      .select({ id: authenticationKeys.id })
      .from(authenticationKeys)
      .where(and(eq(authenticationKeys.userId, u.id), eq(authenticationKeys.keyType, input.key_type), eq(authenticationKeys.key, key)));
    if (dup) throw conflict(MSG.exists, "key");
    const [row] = await tx.insert(authenticationKeys).values({ userId: u.id, name: input.name, keyType: input.key_type, key }).returning();
    await recordActivity(tx, actor, {
      event: "authentication_key_added",
      description: `Added ${TYPE_LABEL[input.key_type]} key "${input.name}" of ${u.username}`,
    });
    return info(row);
  });
}

/** POST /user/{username}/auth_key/{id}/rename {name}. */
export async function renameAuthKey(actor: Actor, username: string, id: number, name: string): Promise<void> {
  await transaction(async (tx) => {
    const u = await owner(tx, username);
    const [old] = await tx
      .select()
      .from(authenticationKeys)
      .where(and(eq(authenticationKeys.id, id), eq(authenticationKeys.userId, u.id)))
      .for("update");
    if (!old) throw notFound(MSG.notFound);
    await tx.update(authenticationKeys).set({ name }).where(eq(authenticationKeys.id, id));
    await recordActivity(tx, actor, {
      event: "authentication_key_renamed",
      description: `Renamed ${TYPE_LABEL[old.keyType as AuthKeyType]} key "${old.name}" of ${u.username} to "${name}"`,
    });
  });
}

/** DELETE /user/{username}/auth_key/{id}. */
export async function deleteAuthKey(actor: Actor, username: string, id: number): Promise<void> {
  await transaction(async (tx) => {
    const u = await owner(tx, username);
    const [gone] = await tx
      .delete(authenticationKeys)
      .where(and(eq(authenticationKeys.id, id), eq(authenticationKeys.userId, u.id)))
      .returning();
    if (!gone) throw notFound(MSG.notFound);
    await recordActivity(tx, actor, {
      event: "authentication_key_removed",
      description: `Removed ${TYPE_LABEL[gone.keyType as AuthKeyType]} key "${gone.name}" of ${u.username}`,
    });
  });
}

/**
 * GET /ssh_authorized_keys?username=&group=: the SSH keys, one per line, for sshd's
 * AuthorizedKeysCommand. Only active users' keys. With `group`, only its members (and with
 * `username` too, that user only if a member); with `username` alone, that user; with neither,
 * nothing. An unknown user or group gives an empty answer, never an error (no enumeration).
 */
export async function authorizedKeys(q: { username?: string; group?: string }): Promise<string> {
  if (!q.username && !q.group) return "";
  const conds = [sql`k.key_type = 'ssh'`, sql`u.is_active`];
  if (q.username) conds.push(sql`lower(u.username) = lower(${q.username})`);
  if (q.group)
    conds.push(sql`exists (select 1 from group_users gu join groups g on g.id = gu.group_id where gu.user_id = u.id and g.name = ${q.group})`);
  const r = await getDb().execute<{ key: string }>(
    sql`select k.key from authentication_keys k join users u on u.id = k.user_id where ${sql.join(conds, sql` and `)} order by u.username, k.id`,
  );
  return r.rows.map((row) => row.key).join("\n");
}

/**
 * The keys a provisioning worker put on a YubiKey (lib/provisioning): the YubiKey (named
 * "YubiKey <n>" by count, as defguard does), its SSH and GPG public keys checked like keys
 * added by hand, in the caller's transaction. A key the user already has is linked to the
 * YubiKey instead of added twice. Throws 400 {msg, field: "key"} when a key does not parse.
 */
export async function addYubiKeyKeys(tx: Tx, userId: number, k: { serial: string; ssh: string; gpg: string }) {
  const ssh = normaliseKey("ssh", k.ssh);
  const gpg = normaliseKey("gpg", k.gpg);
  const [{ n }] = (await tx.execute<{ n: number }>(sql`select count(*)::int n from yubikeys where user_id = ${userId}`)).rows;
  const name = `YubiKey ${n + 1}`;
  const [y] = await tx.insert(yubikeys).values({ userId, name, serial: k.serial }).returning();
  for (const [keyType, key] of [["ssh", ssh], ["gpg", gpg]] as const) {
    await tx.execute(sql`
      insert into authentication_keys (user_id, name, key_type, key, yubikey_id)
      values (${userId}, ${`${name} ${TYPE_LABEL[keyType]}`}, ${keyType}, ${key}, ${y.id})
      on conflict (user_id, key_type, md5(key)) do update set yubikey_id = excluded.yubikey_id`);
  }
  return { yubikeyId: y.id, name, ssh, gpg };
}
