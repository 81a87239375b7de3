import "server-only";
import { entitlement } from "../enterprise/service";
import { performance } from "node:perf_hooks";
import { and, eq, inArray, notInArray, sql } from "drizzle-orm";
import { Attribute, Change, AlreadyExistsError, type Client } from "ldapts";
import { getDb, type Tx } from "../db";
import { groupUsers, groups, ldapGroups, ldapSyncState, ldapUsers, users, type LdapBase } from "../db/schema";
import { transaction, type Emit } from "../events";
import { recordActivities, recordActivity, type ActivityInput, type Actor } from "../activity/service";
import { randomToken } from "../crypto";
import { getSettings, type Settings } from "../settings/service";
import { describeError } from "../log-errors";
import { reconcileAllLocations } from "../locations/service";
import { assertAdminRemains, removeUserInTx } from "../users/service";
import { classify, dnKey, hostOf, ldapConfig, LdapFailure, missingSetting, openBound, probe, type LdapConfig } from "./client";
import {
  membersAreNames,
  newGroupDn,
  newUserDn,
  newUserEntry,
  PERSON_FIELDS,
  personChanges,
  readGroups,
  readUsers,
  type LdapGroup,
  type LdapUser,
  type Person,
} from "./directory";

/**
 * Two-way LDAP sync (docs/ldap.md, "Which side wins"). A three-way merge: for every linked
 * user and every group, the values both sides agreed on at the end of the last sync (the base,
 * in ldap_users / ldap_groups) tell which side changed since. A change on one side is copied to
 * the other; when both sides changed the same field differently, the authority wins (LDAP when
 * "LDAP is the authority" is on, the console otherwise). After a sync the base equals both
 * sides, so the next run finds nothing to do: no loop, no writes.
 */

export const SYNC_ACTOR: Actor = { userId: null, username: "ldap-sync", ip: null };

/** The body's own lock (the job runner holds the job id's lock on another connection). */
const SYNC_LOCK = 7_241_514;

export interface SyncSummary {
  users_imported: number;
  users_exported: number;
  users_updated_console: number;
  users_updated_ldap: number;
  users_removed_console: number;
  users_removed_ldap: number;
  groups_created_console: number;
  groups_created_ldap: number;
  groups_removed_ldap: number;
  members_added_console: number;
  members_removed_console: number;
  members_added_ldap: number;
  members_removed_ldap: number;
  skipped: number;
  ldap_writes: number;
  console_writes: number;
  /** Milliseconds reading LDAP (users and groups), and the rest (merge, console and LDAP writes). */
  ldap_read_ms: number;
  merge_write_ms: number;
}

function emptySummary(): SyncSummary {
  return {
    users_imported: 0,
    users_exported: 0,
    users_updated_console: 0,
    users_updated_ldap: 0,
    users_removed_console: 0,
    users_removed_ldap: 0,
    groups_created_console: 0,
    groups_created_ldap: 0,
    groups_removed_ldap: 0,
    members_added_console: 0,
    members_removed_console: 0,
    members_added_ldap: 0,
    members_removed_ldap: 0,
    skipped: 0,
    ldap_writes: 0,
    console_writes: 0,
    ldap_read_ms: 0,
    merge_write_ms: 0,
  };
}

const USERNAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;
const EMAIL_RE = /^[^\s@]+@[^\s@]+$/;

interface ConsoleUser extends Person {
  id: number;
  isActive: boolean;
  isAdmin: boolean;
}

function samePerson(a: Person, b: Person, fields: readonly (keyof Person)[]): boolean {
  return fields.every((f) => a[f] === b[f]);
}

function pick(p: Person): LdapBase {
  return { username: p.username, email: p.email, first_name: p.first_name, last_name: p.last_name, phone: p.phone };
}

/** Field-by-field three-way merge; `base` null (never synced) counts as both sides changed. */
function merge(l: Person, c: Person, base: Person | null, ldapWins: boolean, fields: readonly (keyof Person)[]): Person {
  const t = { ...c };
  for (const f of fields) {
    if (l[f] === c[f]) t[f] = l[f];
    else if (base && c[f] === base[f]) t[f] = l[f];
    else if (base && l[f] === base[f]) t[f] = c[f];
    else t[f] = ldapWins ? l[f] : c[f];
  }
  return t;
}

function groupRequiresMembers(cfg: LdapConfig): boolean {
  return ["groupofnames", "groupofuniquenames"].includes(cfg.groupObjClass.toLowerCase());
}

/** LDAP writes collected during the merge, made at the end of the console transaction. */
type LdapOp = () => Promise<void>;

async function loadConsoleUsers(tx: Tx): Promise<ConsoleUser[]> {
  const r = await tx.execute<{ id: number; username: string; email: string; first_name: string; last_name: string; phone: string | null; is_active: boolean; is_admin: boolean }>(sql`
    select u.id, u.username, u.email, u.first_name, u.last_name, u.phone, u.is_active,
      exists (select 1 from group_users gu join groups g on g.id = gu.group_id where gu.user_id = u.id and g.is_admin) is_admin
    from users u`);
  return r.rows.map((x) => ({
    id: Number(x.id),
    username: x.username,
    email: x.email,
    first_name: x.first_name,
    last_name: x.last_name,
    phone: x.phone ?? "",
    isActive: x.is_active,
    isAdmin: x.is_admin,
  }));
}

/**
 * One sync: read both sides, merge, write the console changes and their log lines in one
 * transaction and the LDAP changes last in it. Any failure rolls the console side back (LDAP
 * writes already made are found again by the next run, which then has nothing to copy).
 */
export async function syncOnce(s: Settings, client: Client, cfg: LdapConfig): Promise<SyncSummary> {
  const started = performance.now();
  const [ldapUsersAll, ldapGroupsAll] = [await readUsers(client, cfg), await readGroups(client, cfg)];
  const sum = emptySummary();
  sum.ldap_read_ms = Math.round(performance.now() - started);
  const ldapWins = cfg.authoritative;
  // The username is compared as a field only when it is not the entry's RDN (then it is part of the identity).
  const fields: readonly (keyof Person)[] = cfg.usernameAttr.toLowerCase() === cfg.rdnAttr.toLowerCase() ? PERSON_FIELDS.filter((f) => f !== "username") : PERSON_FIELDS;
  const where = hostOf(cfg);

  return transaction(async (tx, emit) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${SYNC_LOCK})`);
    const log: ActivityInput[] = [];
    const ldapOps: LdapOp[] = [];
    const consoleUsers = await loadConsoleUsers(tx);
    const links = await tx.select().from(ldapUsers);
    if (ldapUsersAll.length === 0 && links.some((l) => l.userId !== null)) {
      throw new LdapFailure("no_users", `no users matched under ${cfg.userSearchBase} on ${where}; nothing was changed (check the user search base and object class)`);
    }
    const ldapByKey = new Map(ldapUsersAll.map((u) => [u.key, u]));
    const consoleById = new Map(consoleUsers.map((u) => [u.id, u]));
    const emailOwner = new Map(consoleUsers.map((u) => [u.email.toLowerCase(), u.id]));
    const linkedUserIds = new Set<number>();
    const linkedKeys = new Set<string>();
    /** dn_key → console user id, for the group phase. */
    const keyToUser = new Map<string, number>();
    const keyToDn = new Map<string, string>();
    const keyToUsername = new Map<string, string>();

    // Scope: with sync groups set, only members of those groups (by name) on either side.
    const syncGroups = new Set(cfg.syncGroups.map((g) => g.toLowerCase()));
    const ldapInScope = new Set<string>();
    if (syncGroups.size) {
      const byName = new Map(ldapUsersAll.map((u) => [u.username.toLowerCase(), u.key]));
      for (const g of ldapGroupsAll) {
        if (!syncGroups.has(g.name.toLowerCase())) continue;
        for (const m of g.members) {
          const k = membersAreNames(cfg) ? byName.get(m.toLowerCase()) : dnKey(m);
          if (k) ldapInScope.add(k);
        }
      }
    }
    const consoleInScope = new Set<number>();
    if (syncGroups.size) {
      const r = await tx
        .select({ userId: groupUsers.userId })
        .from(groupUsers)
        .innerJoin(groups, eq(groups.id, groupUsers.groupId))
        .where(inArray(sql`lower(${groups.name})`, [...syncGroups]));
      for (const x of r) consoleInScope.add(x.userId);
    }
    const ldapScoped = (u: LdapUser) => !syncGroups.size || ldapInScope.has(u.key);
    const consoleScoped = (u: ConsoleUser) => !syncGroups.size || consoleInScope.has(u.id);

    const baseUpdates: { dnKey: string; dn: string; userId: number | null; base: LdapBase }[] = [];
    const linkDeletes: string[] = [];
    const consoleUpdates: { id: number; p: Person }[] = [];
    const consoleDeletes: ConsoleUser[] = [];
    const consoleImports: LdapUser[] = [];

    const noteLink = (key: string, dn: string, userId: number, username: string) => {
      linkedUserIds.add(userId);
      linkedKeys.add(key);
      keyToUser.set(key, userId);
      keyToDn.set(key, dn);
      keyToUsername.set(key, username);
    };

    /** Merge a linked pair; base null for a pair matched by username for the first time. */
    const mergePair = (l: LdapUser, c: ConsoleUser, base: LdapBase | null) => {
      const t = merge(l, c, base, ldapWins, fields);
      if (!fields.includes("username")) t.username = c.username;
      const emailTaken = t.email.toLowerCase() !== c.email.toLowerCase() && emailOwner.has(t.email.toLowerCase()) && emailOwner.get(t.email.toLowerCase()) !== c.id;
      if (emailTaken || !EMAIL_RE.test(t.email) || (fields.includes("username") && !USERNAME_RE.test(t.username))) {
        // Cannot take these values here: leave this pair as it is (and its base) for the next run.
        sum.skipped++;
        noteLink(l.key, l.dn, c.id, c.username);
        if (!base) baseUpdates.push({ dnKey: l.key, dn: l.dn, userId: c.id, base: pick(c) });
        return;
      }
      if (!samePerson(t, c, fields)) {
        consoleUpdates.push({ id: c.id, p: t });
        emailOwner.delete(c.email.toLowerCase());
        emailOwner.set(t.email.toLowerCase(), c.id);
        sum.users_updated_console++;
        log.push({ event: "user_modified", description: `LDAP sync: updated user ${c.username} from LDAP` });
      }
      const toLdap = fields.filter((f) => t[f] !== l[f]);
      if (toLdap.length) {
        const next: Partial<Person> = {};
        for (const f of toLdap) next[f] = t[f];
        next.username = t.username;
        ldapOps.push(async () => {
          await client.modify(l.dn, personChanges(cfg, next));
        });
        sum.users_updated_ldap++;
        log.push({ event: "ldap_user_modified", description: `LDAP sync: updated ${l.dn} (${toLdap.join(", ")})` });
      }
      const nextBase = pick({ ...t, username: l.username });
      if (!base || !samePerson(nextBase, base, PERSON_FIELDS)) baseUpdates.push({ dnKey: l.key, dn: l.dn, userId: c.id, base: nextBase });
      noteLink(l.key, l.dn, c.id, c.username);
    };

    // 1. Linked entries.
    for (const link of links) {
      const l = ldapByKey.get(link.dnKey);
      const c = link.userId !== null ? consoleById.get(link.userId) : undefined;
      if (l && c) {
        mergePair(l, c, link.base);
      } else if (l && !c) {
        // Deleted in the console. The deletion goes to LDAP, unless LDAP is the authority and
        // the entry changed there since the last sync: then it comes back as a new import.
        linkDeletes.push(link.dnKey);
        if (ldapWins && !samePerson(l, link.base, fields)) continue;
        linkedKeys.add(l.key);
        ldapOps.push(async () => {
          await client.del(l.dn);
        });
        sum.users_removed_ldap++;
        log.push({ event: "ldap_user_removed", description: `LDAP sync: removed ${l.dn} (user deleted in the console)` });
      } else if (!l && c) {
        // Gone from LDAP. The console user goes too, unless the console is the authority and
        // the user changed here since: then it is exported again. Admins are never removed by
        // a sync (the link is dropped and the user stays).
        linkDeletes.push(link.dnKey);
        if (!ldapWins && !samePerson(c, link.base, fields)) continue;
        linkedUserIds.add(c.id);
        if (c.isAdmin) {
          sum.skipped++;
          log.push({ event: "user_modified", description: `LDAP sync: ${c.username} is gone from LDAP but is an admin: kept` });
          continue;
        }
        consoleDeletes.push(c);
      } else {
        linkDeletes.push(link.dnKey);
      }
    }

    // 2. Unlinked LDAP entries: matched to an unlinked console user by username, or imported.
    const consoleByName = new Map(consoleUsers.filter((u) => !linkedUserIds.has(u.id)).map((u) => [u.username.toLowerCase(), u]));
    const takenNames = new Set(consoleUsers.map((u) => u.username.toLowerCase()));
    for (const l of ldapUsersAll) {
      if (linkedKeys.has(l.key) || !ldapScoped(l)) continue;
      const c = consoleByName.get(l.username.toLowerCase());
      if (c && !linkedUserIds.has(c.id)) {
        mergePair(l, c, null);
        continue;
      }
      if (!USERNAME_RE.test(l.username) || !EMAIL_RE.test(l.email) || emailOwner.has(l.email.toLowerCase()) || takenNames.has(l.username.toLowerCase())) {
        sum.skipped++;
        continue;
      }
      emailOwner.set(l.email.toLowerCase(), -1);
      takenNames.add(l.username.toLowerCase());
      consoleImports.push(l);
      linkedKeys.add(l.key);
    }

    // 3. Unlinked active console users: exported with a random password (changed at their next
    // password change or sign-in, ldap_pass_requires_change).
    const exports: ConsoleUser[] = [];
    for (const c of consoleUsers) {
      if (linkedUserIds.has(c.id) || !c.isActive || !consoleScoped(c)) continue;
      if (!USERNAME_RE.test(c.username)) {
        sum.skipped++;
        continue;
      }
      exports.push(c);
    }

    // Console writes: users.
    for (const u of consoleUpdates) {
      await tx
        .update(users)
        .set({ username: u.p.username, email: u.p.email, firstName: u.p.first_name, lastName: u.p.last_name, phone: u.p.phone || null })
        .where(eq(users.id, u.id));
      emit({ type: "user.modified", userId: u.id, username: u.p.username });
    }
    for (const c of consoleDeletes) {
      await removeUserInTx(tx, emit, SYNC_ACTOR, c, `LDAP sync: removed user ${c.username} (gone from LDAP)`);
      sum.users_removed_console++;
    }
    for (let i = 0; i < consoleImports.length; i += 1000) {
      const chunk = consoleImports.slice(i, i + 1000);
      const rows = await tx
        .insert(users)
        .values(chunk.map((l) => ({ username: l.username, email: l.email, firstName: l.first_name, lastName: l.last_name, phone: l.phone || null, passwordHash: null, enrolled: true })))
        .returning({ id: users.id, username: users.username });
      rows.forEach((r, j) => {
        const l = chunk[j];
        noteLink(l.key, l.dn, r.id, r.username);
        baseUpdates.push({ dnKey: l.key, dn: l.dn, userId: r.id, base: pick(l) });
        emit({ type: "user.created", userId: r.id, username: r.username });
        log.push({ event: "user_added", description: `LDAP sync: imported user ${r.username} from LDAP` });
      });
      sum.users_imported += rows.length;
    }
    for (const c of exports) {
      const dn = newUserDn(cfg, c.username);
      const key = dnKey(dn);
      ldapOps.push(async () => {
        try {
          await client.add(dn, newUserEntry(cfg, c, randomToken(24)) as Record<string, string | string[]>);
        } catch (err) {
          if (!(err instanceof AlreadyExistsError)) throw err;
          // An entry outside the user filter already has this DN: leave it alone.
        }
      });
      noteLink(key, dn, c.id, c.username);
      baseUpdates.push({ dnKey: key, dn, userId: c.id, base: pick(c) });
      sum.users_exported++;
      log.push({ event: "ldap_user_added", description: `LDAP sync: exported user ${c.username} to LDAP as ${dn}` });
    }
    if (exports.length) {
      await tx.update(users).set({ ldapPassRequiresChange: true }).where(inArray(users.id, exports.map((c) => c.id)));
    }

    // 4. Group memberships (three-way set merge per group name, linked users only).
    const nameToKey = new Map([...keyToUsername].map(([k, n]) => [n.toLowerCase(), k]));
    const keyOfMember = (m: string): string | undefined => (membersAreNames(cfg) ? nameToKey.get(m.toLowerCase()) : dnKey(m));
    const userToKey = new Map([...keyToUser].map(([k, id]) => [id, k]));
    const ldapG = new Map<string, { g: LdapGroup; keys: Set<string> }>();
    for (const g of ldapGroupsAll) {
      const keys = new Set<string>();
      for (const m of g.members) {
        const k = keyOfMember(m);
        if (k && keyToUser.has(k)) keys.add(k);
      }
      ldapG.set(g.name, { g, keys });
    }
    const consoleGroups = await tx.select({ id: groups.id, name: groups.name }).from(groups);
    const memberRows = await tx.select({ groupId: groupUsers.groupId, userId: groupUsers.userId }).from(groupUsers);
    const consoleG = new Map<string, { id: number; keys: Set<string> }>();
    const groupById = new Map(consoleGroups.map((g) => [g.id, g.name]));
    for (const g of consoleGroups) consoleG.set(g.name, { id: g.id, keys: new Set() });
    for (const r of memberRows) {
      const k = userToKey.get(r.userId);
      if (k) consoleG.get(groupById.get(r.groupId)!)!.keys.add(k);
    }
    const baseG = new Map((await tx.select().from(ldapGroups)).map((r) => [r.name, new Set(r.members)]));
    const names = new Set([...ldapG.keys(), ...consoleG.keys(), ...baseG.keys()]);
    const memberValue = (k: string) => (membersAreNames(cfg) ? keyToUsername.get(k)! : keyToDn.get(k)!);
    const addRows: { groupId: number; userId: number }[] = [];
    const removeRows: { groupId: number; userId: number }[] = [];
    const baseGroupWrites: { name: string; members: string[] }[] = [];
    const baseGroupDeletes: string[] = [];
    let membershipChanged = false;

    for (const name of names) {
      const lg = ldapG.get(name);
      const cg = consoleG.get(name);
      const L = lg?.keys ?? new Set<string>();
      const C = cg?.keys ?? new Set<string>();
      const B = baseG.get(name) ?? new Set<string>();
      const T = new Set<string>();
      for (const k of L) if (C.has(k) || !B.has(k)) T.add(k);
      for (const k of C) if (!B.has(k)) T.add(k);

      // Console side.
      let groupId = cg?.id;
      const toAddC = [...T].filter((k) => !C.has(k));
      const toRemoveC = [...C].filter((k) => !T.has(k));
      if (!groupId && toAddC.length) {
        const [g] = await tx.insert(groups).values({ name }).returning({ id: groups.id });
        groupId = g.id;
        sum.groups_created_console++;
        log.push({ event: "group_added", description: `LDAP sync: created group ${name} from LDAP` });
        emit({ type: "group.changed", groupId, name });
      }
      for (const k of toAddC) {
        addRows.push({ groupId: groupId!, userId: keyToUser.get(k)! });
        log.push({ event: "group_member_added", description: `LDAP sync: added ${keyToUsername.get(k)} to group ${name}` });
      }
      for (const k of toRemoveC) {
        removeRows.push({ groupId: groupId!, userId: keyToUser.get(k)! });
        log.push({ event: "group_member_removed", description: `LDAP sync: removed ${keyToUsername.get(k)} from group ${name}` });
      }
      sum.members_added_console += toAddC.length;
      sum.members_removed_console += toRemoveC.length;
      if (toAddC.length || toRemoveC.length) {
        membershipChanged = true;
        if (groupId) emit({ type: "group.changed", groupId, name });
      }

      // LDAP side.
      const toAddL = [...T].filter((k) => !L.has(k));
      const toRemoveL = [...L].filter((k) => !T.has(k));
      if (!lg && toAddL.length) {
        const dn = newGroupDn(cfg, name);
        const values = toAddL.map(memberValue);
        ldapOps.push(async () => {
          await client.add(dn, { objectClass: [cfg.groupObjClass], [cfg.groupnameAttr]: name, [cfg.groupMemberAttr]: values });
        });
        sum.groups_created_ldap++;
        sum.members_added_ldap += toAddL.length;
        log.push({ event: "ldap_group_added", description: `LDAP sync: created group ${dn} with ${values.length} member(s)` });
      } else if (lg && (toAddL.length || toRemoveL.length)) {
        const removeValues = new Set(toRemoveL.map((k) => dnKey(memberValue(k))));
        const rawRemove = lg.g.members.filter((m) => removeValues.has(dnKey(m)) || (membersAreNames(cfg) && removeValues.has(m.toLowerCase())));
        const left = lg.g.members.length - rawRemove.length + toAddL.length;
        if (left === 0 && groupRequiresMembers(cfg)) {
          ldapOps.push(async () => {
            await client.del(lg.g.dn);
          });
          sum.groups_removed_ldap++;
          log.push({ event: "ldap_group_removed", description: `LDAP sync: removed group ${lg.g.dn} (no members left)` });
        } else {
          const changes: Change[] = [];
          if (toAddL.length) changes.push(new Change({ operation: "add", modification: new Attribute({ type: cfg.groupMemberAttr, values: toAddL.map(memberValue) }) }));
          if (rawRemove.length) changes.push(new Change({ operation: "delete", modification: new Attribute({ type: cfg.groupMemberAttr, values: rawRemove }) }));
          ldapOps.push(async () => {
            await client.modify(lg.g.dn, changes);
          });
        }
        sum.members_added_ldap += toAddL.length;
        sum.members_removed_ldap += toRemoveL.length;
        for (const k of toAddL) log.push({ event: "ldap_group_member_added", description: `LDAP sync: added ${keyToUsername.get(k)} to LDAP group ${name}` });
        for (const k of toRemoveL) log.push({ event: "ldap_group_member_removed", description: `LDAP sync: removed ${keyToUsername.get(k)} from LDAP group ${name}` });
      }

      const same = T.size === B.size && [...T].every((k) => B.has(k));
      if (!same) {
        if (T.size) baseGroupWrites.push({ name, members: [...T].sort() });
        else baseGroupDeletes.push(name);
      }
    }

    for (let i = 0; i < addRows.length; i += 1000) await tx.insert(groupUsers).values(addRows.slice(i, i + 1000)).onConflictDoNothing();
    for (const r of removeRows) {
      await tx.execute(sql`delete from group_users where group_id = ${r.groupId} and user_id = ${r.userId}`);
    }
    if (membershipChanged) {
      // Removing memberships may not take away the last active admin (a fresh instance
      // without any admin yet is left as it is).
      if (removeRows.length && consoleUsers.some((u) => u.isAdmin && u.isActive)) await assertAdminRemains(tx);
      await reconcileAllLocations(tx);
    }

    // Merge bases.
    if (linkDeletes.length) await tx.delete(ldapUsers).where(inArray(ldapUsers.dnKey, linkDeletes));
    for (let i = 0; i < baseUpdates.length; i += 1000) {
      const chunk = baseUpdates.slice(i, i + 1000);
      // A user linked anew under another entry loses the old link first (user_id is unique).
      const ids = chunk.map((b) => b.userId).filter((x): x is number => x !== null);
      if (ids.length) await tx.delete(ldapUsers).where(and(inArray(ldapUsers.userId, ids), notInArray(ldapUsers.dnKey, chunk.map((b) => b.dnKey))));
      await tx
        .insert(ldapUsers)
        .values(chunk)
        .onConflictDoUpdate({ target: ldapUsers.dnKey, set: { dn: sql`excluded.dn`, userId: sql`excluded.user_id`, base: sql`excluded.base` } });
    }
    for (const g of baseGroupWrites) {
      await tx.insert(ldapGroups).values(g).onConflictDoUpdate({ target: ldapGroups.name, set: { members: g.members } });
    }
    if (baseGroupDeletes.length) await tx.delete(ldapGroups).where(inArray(ldapGroups.name, baseGroupDeletes));

    sum.console_writes =
      sum.users_imported + sum.users_updated_console + sum.users_removed_console + sum.groups_created_console + sum.members_added_console + sum.members_removed_console + (exports.length ? 1 : 0);
    await recordActivities(tx, SYNC_ACTOR, log);

    // LDAP writes last: a refused write rolls the console side back.
    for (const op of ldapOps) {
      try {
        await op();
      } catch (err) {
        throw classify(err, "write", where);
      }
      sum.ldap_writes++;
    }
    sum.merge_write_ms = Math.round(performance.now() - started) - sum.ldap_read_ms;
    return sum;
  });
}

export interface SyncOutcome {
  ok: boolean;
  summary?: SyncSummary;
  kind?: string;
  msg?: string;
}

async function recordOutcome(o: SyncOutcome) {
  const now = new Date();
  const values = {
    id: 1,
    lastRunAt: now,
    lastOk: o.ok,
    lastErrorKind: o.ok ? null : (o.kind ?? null),
    lastError: o.ok ? null : (o.msg ?? null),
    ...(o.ok ? { lastSuccessAt: now, lastSummary: o.summary as unknown as Record<string, number> } : {}),
  };
  await transaction(async (tx) => {
    await tx.insert(ldapSyncState).values(values).onConflictDoUpdate({ target: ldapSyncState.id, set: values });
    if (!o.ok) await recordActivity(tx, SYNC_ACTOR, { event: "ldap_sync_failed", description: `LDAP sync failed: ${o.msg}` });
  });
}

/**
 * Run a sync now with the stored settings and record its outcome (the LDAP screen shows it).
 * Never throws for LDAP trouble: the outcome says what went wrong, nothing was changed in the
 * console, and the job tries again at the next interval.
 */
export async function runLdapSync(): Promise<SyncOutcome> {
  const s = await getSettings();
  let outcome: SyncOutcome;
  let client: Client | null = null;
  try {
    if (!s.ldapEnabled) throw new LdapFailure("not_configured", "LDAP is not enabled");
    const missing = missingSetting(s);
    if (missing) throw new LdapFailure("not_configured", missing);
    const cfg = ldapConfig(s);
    await probe(cfg);
    client = await openBound(cfg);
    const summary = await syncOnce(s, client, cfg);
    outcome = { ok: true, summary };
  } catch (err) {
    if (err instanceof LdapFailure) outcome = { ok: false, kind: err.kind, msg: err.message };
    else {
      const e = err as { message?: string; status?: number };
      // A rule of the console refused the result (e.g. the last admin): nothing was changed.
      if (typeof e?.status === "number") outcome = { ok: false, kind: "rejected", msg: e.message };
      else {
        console.error("[ldap] sync failed:", describeError(err));
        outcome = { ok: false, kind: "other", msg: describeError(err) };
      }
    }
  } finally {
    await client?.unbind().catch(() => {});
  }
  await recordOutcome(outcome);
  return outcome;
}

/**
 * The periodic job (lib/jobs/runner.ts, every 10 s): syncs when LDAP and its sync are enabled
 * and configured, and the sync interval has passed since the last run (successful or not).
 */
export async function ldapSyncJob(): Promise<void> {
  const s = await getSettings();
  if (!s.ldapEnabled || !s.ldapSyncEnabled || missingSetting(s)) return;
  // An enterprise feature: over the free tier without a licence the sync pauses (nothing is deleted).
  if (!(await entitlement()).enterprise) return;
  const [st] = await getDb().select().from(ldapSyncState).where(eq(ldapSyncState.id, 1));
  if (st?.lastRunAt && Date.now() - st.lastRunAt.getTime() < s.ldapSyncInterval * 1000) return;
  const o = await runLdapSync();
  if (!o.ok) console.error(`[ldap] sync failed (${o.kind}): ${o.msg}; retrying in ${s.ldapSyncInterval} s`);
}

/** Link a console user to an LDAP entry with a base equal to both (sign-in import, tests). */
export async function linkUser(tx: Tx, userId: number, l: LdapUser) {
  await tx.execute(sql`delete from ldap_users where user_id = ${userId} and dn_key <> ${l.key}`);
  await tx
    .insert(ldapUsers)
    .values({ dnKey: l.key, dn: l.dn, userId, base: pick(l) })
    .onConflictDoUpdate({ target: ldapUsers.dnKey, set: { dn: l.dn, userId, base: pick(l) } });
}

export type { Emit };
