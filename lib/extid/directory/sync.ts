import "server-only";
import { entitlement } from "../../enterprise/service";
/**
 * Directory sync (enterprise): the external provider's directory decides who stays active and
 * who is in which group.
 *
 * Rules:
 * - People are matched by e-mail address (case-insensitive).
 * - Target "users" or "all": a console user whose directory account is suspended is disabled,
 *   one whose directory account is active again is enabled; console users missing from the
 *   directory are kept, disabled or deleted as configured, separately for admins and others.
 *   With "prefetch users" people of the directory without an account get one.
 * - Target "groups" or "all": groups of the directory (only those named in "group match" when
 *   it is set) are created in the console when missing; for every console user found in the
 *   directory, membership of those groups follows the directory. Groups that exist only in the
 *   console are left alone.
 * - The last active admin is never disabled, deleted or taken out of the admin group.
 * - Everything is read from the provider first and then applied in one transaction with one
 *   activity-log entry per change: a sync that fails to read anything changes nothing, and is
 *   tried again at the next interval.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { getDb, type Tx } from "../../db";
import { groupUsers, groups, openidProvider, users } from "../../db/schema";
import { transaction, type Emit } from "../../events";
import { recordActivity, type Actor } from "../../activity/service";
import { deleteUserSessions, isAdminSql } from "../../auth/session";
import { reconcileAllLocations } from "../../locations/service";
import { getSettings } from "../../settings/service";
import { usernameSchema } from "../../validation";
import { describeError } from "../../log-errors";
import { AppError } from "../../errors";
import { SYNC_PROVIDERS, type ProviderPreset } from "../schema";
import { getProviderRow, providerSecrets, type ProviderRow } from "../service";
import { usernameFrom, type UsernameHandling } from "../username";
import { DirectoryError } from "./http";
import { GoogleDirectory } from "./google";
import { MicrosoftDirectory } from "./microsoft";
import { OktaDirectory } from "./okta";
import { JumpCloudDirectory } from "./jumpcloud";
import type { Directory, DirectoryGroup, DirectoryUser } from "./types";

export const SYNC_ACTOR: Actor = { userId: null, username: "directory sync", ip: null };

/** The directory client of the configured provider, or a DirectoryError saying what is missing. */
export function directoryFor(row: ProviderRow): Directory {
  const s = providerSecrets(row);
  switch (row.name) {
    case "Google": {
      if (!s.googleKey) throw new DirectoryError("Google: the service-account key is not set");
      if (!row.googleServiceAccountEmail) throw new DirectoryError("Google: the service-account e-mail is not set");
      if (!row.adminEmail) throw new DirectoryError("Google: the admin e-mail is not set");
      return new GoogleDirectory(s.googleKey, row.googleServiceAccountEmail, row.adminEmail);
    }
    case "Microsoft":
      if (!s.clientSecret) throw new DirectoryError("Microsoft: the client secret is not set");
      return new MicrosoftDirectory(row.clientId, s.clientSecret, row.baseUrl);
    case "Okta":
      if (!s.oktaJwk || !row.oktaDirsyncClientId) throw new DirectoryError("Okta: the directory-sync client id and private JWK must both be set");
      return new OktaDirectory(s.oktaJwk, row.oktaDirsyncClientId, row.baseUrl);
    case "JumpCloud":
      if (!s.jumpcloudKey) throw new DirectoryError("JumpCloud: the API key is not set");
      return new JumpCloudDirectory(s.jumpcloudKey);
    default:
      throw new DirectoryError(`directory sync is not available for the provider ${row.name}`);
  }
}

export interface Snapshot {
  users: DirectoryUser[];
  groups: DirectoryGroup[];
  /** e-mail → names of the (matched) directory groups the person is in. */
  membership: Map<string, Set<string>>;
}

/** Read everything the sync needs from the directory (nothing is written). */
export async function readDirectory(dir: Directory, row: Pick<ProviderRow, "directorySyncTarget" | "directorySyncGroupMatch">): Promise<Snapshot> {
  await dir.prepare();
  const dirUsers = await dir.users();
  const membership = new Map<string, Set<string>>();
  let dirGroups: DirectoryGroup[] = [];
  if (row.directorySyncTarget !== "users") {
    const match = new Set(row.directorySyncGroupMatch);
    dirGroups = (await dir.groups()).filter((g) => match.size === 0 || match.has(g.name));
    for (const g of dirGroups) {
      for (const email of await dir.members(g, dirUsers)) {
        let set = membership.get(email);
        if (!set) membership.set(email, (set = new Set()));
        set.add(g.name);
      }
    }
  }
  return { users: dirUsers, groups: dirGroups, membership };
}

interface ConsoleUser {
  id: number;
  username: string;
  email: string;
  isActive: boolean;
  isAdmin: boolean;
}

async function consoleUsers(tx: Tx): Promise<ConsoleUser[]> {
  return tx.select({ id: users.id, username: users.username, email: users.email, isActive: users.isActive, isAdmin: isAdminSql() }).from(users);
}

async function activeAdmins(tx: Tx): Promise<number> {
  const r = await tx.execute<{ n: number }>(sql`select count(*)::int n from ${users} where ${users.isActive} and ${isAdminSql()}`);
  return Number(r.rows[0].n);
}

async function disable(tx: Tx, emit: Emit, u: ConsoleUser, why: string) {
  await tx.update(users).set({ isActive: false }).where(eq(users.id, u.id));
  await deleteUserSessions(tx, u.id);
  await recordActivity(tx, SYNC_ACTOR, { event: "user_disabled", description: `Disabled user ${u.username}: ${why}` });
  emit({ type: "user.disabled", userId: u.id, username: u.username });
}

async function remove(tx: Tx, emit: Emit, u: ConsoleUser) {
  const owned = await tx.execute<{ id: number; pubkey: string; locs: number[] }>(sql`
    select d.id, d.wireguard_pubkey pubkey, coalesce(array_agg(dl.location_id) filter (where dl.location_id is not null), '{}') locs
    from devices d left join device_locations dl on dl.device_id = d.id where d.user_id = ${u.id} group by d.id`);
  await tx.delete(users).where(eq(users.id, u.id));
  for (const d of owned.rows) emit({ type: "device.deleted", deviceId: Number(d.id), pubkey: d.pubkey, locationIds: d.locs.map(Number) });
  await recordActivity(tx, SYNC_ACTOR, { event: "user_removed", description: `Removed user ${u.username}: not in the directory any more` });
  emit({ type: "user.deleted", userId: u.id, username: u.username });
}

export interface SyncOutcome {
  users: number;
  groups: number;
  changes: number;
  /** Changes that were not made, with the reason (e.g. the last admin). */
  skipped: string[];
}

/**
 * Group membership follows the directory for the given console users (those found in the
 * directory): the snapshot's groups are created when missing, memberships of those groups
 * added and removed; other groups are left alone, and the last active admin keeps the admin
 * group. Returns the number of changes.
 */
async function applyGroups(tx: Tx, emit: Emit, snap: Snapshot, all: ConsoleUser[], skipped: string[], how: string): Promise<number> {
  let changes = 0;
  const dirByEmail = new Set(snap.users.map((u) => u.email));
  const managed = new Map<string, number>();
  for (const g of snap.groups) {
    if (managed.has(g.name)) continue;
    let [existing] = await tx.select({ id: groups.id }).from(groups).where(eq(groups.name, g.name));
    if (!existing) {
      [existing] = await tx.insert(groups).values({ name: g.name }).returning({ id: groups.id });
      await recordActivity(tx, SYNC_ACTOR, { event: "group_added", description: `Added group ${g.name} from the directory` });
      emit({ type: "group.changed", groupId: existing.id, name: g.name });
      changes++;
    }
    managed.set(g.name, existing.id);
  }
  const managedIds = [...managed.values()];
  const adminGroupIds = new Set(
    managedIds.length ? (await tx.select({ id: groups.id }).from(groups).where(and(inArray(groups.id, managedIds), eq(groups.isAdmin, true)))).map((g) => g.id) : [],
  );
  const current = managedIds.length
    ? await tx.select({ userId: groupUsers.userId, groupId: groupUsers.groupId }).from(groupUsers).where(inArray(groupUsers.groupId, managedIds))
    : [];
  const currentByUser = new Map<number, Set<number>>();
  for (const c of current) {
    let s = currentByUser.get(c.userId);
    if (!s) currentByUser.set(c.userId, (s = new Set()));
    s.add(c.groupId);
  }
  const nameOf = new Map([...managed].map(([n, id]) => [id, n]));
  let membershipChanged = false;
  for (const u of all) {
    const email = u.email.toLowerCase();
    if (!dirByEmail.has(email) && !snap.membership.has(email)) continue;
    const want = new Set([...(snap.membership.get(email) ?? [])].map((n) => managed.get(n)!).filter(Boolean));
    const have = currentByUser.get(u.id) ?? new Set<number>();
    for (const gid of want) {
      if (have.has(gid)) continue;
      await tx.insert(groupUsers).values({ groupId: gid, userId: u.id }).onConflictDoNothing();
      await recordActivity(tx, SYNC_ACTOR, { event: "group_member_added", description: `Added ${u.username} to group ${nameOf.get(gid)} (${how})` });
      emit({ type: "group.changed", groupId: gid, name: nameOf.get(gid)! });
      changes++;
      membershipChanged = true;
    }
    for (const gid of have) {
      if (want.has(gid)) continue;
      await tx.delete(groupUsers).where(and(eq(groupUsers.groupId, gid), eq(groupUsers.userId, u.id)));
      if (adminGroupIds.has(gid) && (await activeAdmins(tx)) < 1) {
        // Still an admin through another group? If not, put the membership back.
        await tx.insert(groupUsers).values({ groupId: gid, userId: u.id });
        skipped.push(`${u.username} is the last active admin and stays in ${nameOf.get(gid)}`);
        continue;
      }
      await recordActivity(tx, SYNC_ACTOR, { event: "group_member_removed", description: `Removed ${u.username} from group ${nameOf.get(gid)} (${how})` });
      emit({ type: "group.changed", groupId: gid, name: nameOf.get(gid)! });
      changes++;
      membershipChanged = true;
    }
  }
  // Group membership decides which locations users' devices may use.
  if (membershipChanged) await reconcileAllLocations(tx);
  return changes;
}

/** Apply a snapshot in one transaction. */
export async function applySnapshot(row: ProviderRow, snap: Snapshot): Promise<SyncOutcome> {
  const handling = (await getSettings()).openidUsernameHandling as UsernameHandling;
  return transaction(async (tx, emit) => {
    // Serialise with other admin-changing work (lib/users) and with another sync.
    await tx.execute(sql`select pg_advisory_xact_lock(7240120)`);
    let changes = 0;
    const skipped: string[] = [];
    const dirByEmail = new Map(snap.users.map((u) => [u.email, u]));
    let adminsLeft = await activeAdmins(tx);
    let all = await consoleUsers(tx);

    if (row.directorySyncTarget !== "groups") {
      for (const u of all) {
        const d = dirByEmail.get(u.email.toLowerCase());
        if (d) {
          if (!d.active && u.isActive) {
            if (u.isAdmin && adminsLeft <= 1) {
              skipped.push(`${u.username} is the last active admin and stays enabled`);
              continue;
            }
            await disable(tx, emit, u, "suspended in the directory");
            if (u.isAdmin) adminsLeft--;
            changes++;
          } else if (d.active && !u.isActive) {
            await tx.update(users).set({ isActive: true }).where(eq(users.id, u.id));
            await recordActivity(tx, SYNC_ACTOR, { event: "user_enabled", description: `Enabled user ${u.username}: active in the directory` });
            emit({ type: "user.enabled", userId: u.id, username: u.username });
            if (u.isAdmin) adminsLeft++;
            changes++;
          }
          continue;
        }
        const behavior = u.isAdmin ? row.directorySyncAdminBehavior : row.directorySyncUserBehavior;
        if (behavior === "keep") continue;
        if (u.isAdmin && u.isActive && adminsLeft <= 1) {
          skipped.push(`${u.username} is the last active admin and is kept`);
          continue;
        }
        if (behavior === "disable" && u.isActive) {
          await disable(tx, emit, u, "not in the directory");
          if (u.isAdmin) adminsLeft--;
          changes++;
        } else if (behavior === "delete") {
          await remove(tx, emit, u);
          if (u.isAdmin && u.isActive) adminsLeft--;
          changes++;
        }
      }
      if (row.prefetchUsers) {
        const known = new Set(all.map((u) => u.email.toLowerCase()));
        for (const d of snap.users) {
          if (known.has(d.email) || !d.active) continue;
          const username = usernameFrom(d.email.split("@")[0], handling);
          if (!usernameSchema.safeParse(username).success) {
            skipped.push(`no valid username for ${d.email}`);
            continue;
          }
          const [taken] = await tx.select({ id: users.id }).from(users).where(sql`lower(${users.username}) = ${username.toLowerCase()}`);
          if (taken) {
            skipped.push(`the username ${username} for ${d.email} is taken`);
            continue;
          }
          const [nu] = await tx
            .insert(users)
            .values({ username, email: d.email, firstName: d.firstName ?? username, lastName: d.lastName ?? "", phone: d.phone?.slice(0, 32) ?? null, passwordHash: null, enrolled: true })
            .returning();
          await recordActivity(tx, SYNC_ACTOR, { event: "user_added", description: `Added user ${username} from the directory` });
          emit({ type: "user.created", userId: nu.id, username });
          changes++;
        }
      }
      all = await consoleUsers(tx);
    }

    if (row.directorySyncTarget !== "users") changes += await applyGroups(tx, emit, snap, all, skipped, "directory");
    return { users: snap.users.length, groups: snap.groups.length, changes, skipped };
  });
}

function summary(o: SyncOutcome): string {
  const base = `${o.users} users and ${o.groups} groups read from the directory; ${o.changes} change${o.changes === 1 ? "" : "s"}`;
  return o.skipped.length ? `${base}; not done: ${o.skipped.slice(0, 5).join("; ")}${o.skipped.length > 5 ? ` (and ${o.skipped.length - 5} more)` : ""}` : base;
}

async function recordStatus(id: number, ok: boolean, result: string | null, error: string | null) {
  await getDb().update(openidProvider).set({ lastSyncAt: new Date(), lastSyncOk: ok, lastSyncResult: result, lastSyncError: error }).where(eq(openidProvider.id, id));
}

/** Run one sync now with the configured provider; the outcome is kept for the settings screen. */
export async function runDirectorySync(row?: ProviderRow | null): Promise<SyncOutcome> {
  const provider = row ?? (await getProviderRow());
  if (!provider) throw new DirectoryError("no external OpenID provider is configured");
  try {
    const outcome = await applySnapshot(provider, await readDirectory(directoryFor(provider), provider));
    await recordStatus(provider.id, true, summary(outcome), null);
    return outcome;
  } catch (err) {
    const msg = err instanceof DirectoryError ? err.message : `the sync failed: ${describeError(err)}`;
    await recordStatus(provider.id, false, null, msg);
    throw err instanceof DirectoryError ? err : new DirectoryError(msg);
  }
}

/**
 * At sign-in through the external provider (as defguard does on login): when directory sync is
 * on and covers groups, the signing-in person's group memberships follow the directory before
 * the session opens: their directory groups (within "group match") are created when missing
 * and joined, the directory's other groups left. Nothing happens for someone the directory
 * does not know, without the enterprise licence, or for providers without a directory.
 * Throws a DirectoryError when the directory cannot be read (the caller decides what the
 * sign-in does then); returns the number of changes, or null when nothing was to be done.
 */
export async function syncGroupsAtSignIn(userId: number): Promise<number | null> {
  const row = await getProviderRow();
  if (!row?.directorySyncEnabled || row.directorySyncTarget === "users" || !SYNC_PROVIDERS.includes(row.name as ProviderPreset)) return null;
  if (!(await entitlement()).enterprise) return null;
  const [person] = await getDb().select({ email: users.email }).from(users).where(eq(users.id, userId));
  if (!person) return null;
  const email = person.email.toLowerCase();
  const dir = directoryFor(row);
  await dir.prepare();
  const match = new Set(row.directorySyncGroupMatch);
  const dirGroups = (await dir.groups()).filter((g) => match.size === 0 || match.has(g.name));
  const mine = await dir.userGroups(email, dirGroups);
  if (mine === null) return null;
  const names = new Set(dirGroups.map((g) => g.name));
  const snap: Snapshot = {
    users: [{ id: "", email, active: true, firstName: null, lastName: null, phone: null }],
    groups: dirGroups,
    membership: new Map([[email, new Set(mine.filter((n) => names.has(n)))]]),
  };
  return transaction(async (tx, emit) => {
    await tx.execute(sql`select pg_advisory_xact_lock(7240120)`);
    const [u] = await tx.select({ id: users.id, username: users.username, email: users.email, isActive: users.isActive, isAdmin: isAdminSql() }).from(users).where(eq(users.id, userId));
    if (!u) return null;
    const skipped: string[] = [];
    const changes = await applyGroups(tx, emit, snap, [u], skipped, "directory, at sign-in");
    for (const why of skipped) console.warn(`[directory-sync] at sign-in: ${why}`);
    return changes;
  });
}

export const SYNC_NOW_MSG = {
  noProvider: "no external OpenID provider is configured",
  notAvailable: (name: string) => `directory sync is not available for the provider ${name}: only Google, Microsoft, Okta and JumpCloud directories can be synchronised`,
  off: "directory sync is turned off: turn it on and save the settings first",
} as const;

export interface SyncNowAnswer extends SyncOutcome {
  success: true;
  /** The outcome in words, as kept for the settings screen. */
  message: string;
  last_sync_at: string;
}

/**
 * POST /directory_sync ("Sync now" in Settings → OpenID): one sync right away, whatever the
 * interval. 400 {msg} when there is nothing to sync (no provider, a provider without a
 * directory, sync turned off) and when the sync failed (the error in words; nothing changed,
 * and the failure is kept as the last result).
 */
export async function syncDirectoryNow(): Promise<SyncNowAnswer> {
  const row = await getProviderRow();
  if (!row) throw new AppError(400, SYNC_NOW_MSG.noProvider);
  if (!SYNC_PROVIDERS.includes(row.name as ProviderPreset)) throw new AppError(400, SYNC_NOW_MSG.notAvailable(row.name));
  if (!row.directorySyncEnabled) throw new AppError(400, SYNC_NOW_MSG.off);
  try {
    const outcome = await runDirectorySync(row);
    const [after] = await getDb().select({ at: openidProvider.lastSyncAt, result: openidProvider.lastSyncResult }).from(openidProvider).where(eq(openidProvider.id, row.id));
    return { success: true, ...outcome, message: after?.result ?? summary(outcome), last_sync_at: (after?.at ?? new Date()).toISOString() };
  } catch (err) {
    if (err instanceof DirectoryError) throw new AppError(400, err.message);
    throw err;
  }
}

/**
 * The periodic job (every console process ticks; one runs it): a sync is due when directory
 * sync is on and its interval has passed since the last attempt, successful or not.
 */
export async function directorySyncJob(): Promise<void> {
  const row = await getProviderRow();
  if (!row?.directorySyncEnabled) return;
  // An enterprise feature: over the free tier without a licence the sync pauses (nothing is deleted).
  if (!(await entitlement()).enterprise) return;
  if (row.lastSyncAt && Date.now() - row.lastSyncAt.getTime() < row.directorySyncInterval * 1000 * 0.95) return;
  try {
    await runDirectorySync(row);
  } catch (err) {
    console.error(`[directory-sync] ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * GET /test_directory_sync (defguard's shape `{message, success}`): obtain a token and make one
 * authenticated read. Ours adds `users` and `groups`: how many the credentials can see.
 */
export async function testDirectorySync(): Promise<{ success: boolean; message: string; users?: number; groups?: number }> {
  const row = await getProviderRow();
  if (!row) return { success: false, message: "no external OpenID provider is configured" };
  try {
    const dir = directoryFor(row);
    await dir.prepare();
    await dir.testConnection();
    const [u, g] = await Promise.all([dir.users(), row.directorySyncTarget === "users" ? Promise.resolve([]) : dir.groups()]);
    return { success: true, message: `Connection successful: ${u.length} users and ${g.length} groups visible`, users: u.length, groups: g.length };
  } catch (err) {
    return { success: false, message: err instanceof DirectoryError ? err.message : `the test failed: ${describeError(err)}` };
  }
}
