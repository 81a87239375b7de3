import "server-only";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { groupUsers, groups, users } from "../db/schema";
import { badRequest, conflict, notFound } from "../errors";
import { recordActivity, type Actor } from "../activity/service";
import { transaction } from "../events";
import { GROUPS_ID } from "../auth/session";
import { reconcileAllLocations } from "../locations/service";
import { assertAdminRemains, findUserByUsername, lockAdmins } from "../users/service";
import type { GroupInput, GroupUpdateInput } from "./schema";

export interface GroupInfo {
  id: number;
  name: string;
  members: string[];
  vpn_locations: string[];
  is_admin: boolean;
}

const membersSql = sql<string[]>`coalesce((select array_agg(u.username order by u.username) from ${groupUsers} gu join ${users} u on u.id = gu.user_id where gu.group_id = ${GROUPS_ID}), '{}')`;

/** Locations a group is allowed to use (its "vpn_locations"). */
const locationsSql = sql<string[]>`coalesce((select array_agg(l.name order by l.name) from location_allowed_groups lg join locations l on l.id = lg.location_id where lg.group_id = ${GROUPS_ID}), '{}')`;

export async function listGroupNames(): Promise<string[]> {
  const rows = await getDb().select({ name: groups.name }).from(groups).orderBy(asc(groups.name));
  return rows.map((r) => r.name);
}

export async function listGroupInfo(tx: Tx = getDb()): Promise<GroupInfo[]> {
  const rows = await tx.select({ g: groups, members: membersSql, locations: locationsSql }).from(groups).orderBy(asc(groups.name));
  return rows.map((r) => ({ id: r.g.id, name: r.g.name, members: r.members, vpn_locations: r.locations, is_admin: r.g.isAdmin }));
}

export async function getGroupInfo(name: string, tx: Tx = getDb()): Promise<GroupInfo> {
  const [r] = await tx.select({ g: groups, members: membersSql, locations: locationsSql }).from(groups).where(eq(groups.name, name)).limit(1);
  if (!r) throw notFound("group not found");
  return { id: r.g.id, name: r.g.name, members: r.members, vpn_locations: r.locations, is_admin: r.g.isAdmin };
}

async function requireGroup(tx: Tx, name: string) {
  const [g] = await tx.select().from(groups).where(eq(groups.name, name)).limit(1);
  if (!g) throw notFound("group not found");
  return g;
}

async function userIdsFor(tx: Tx, usernames: string[]): Promise<number[]> {
  const wanted = [...new Set(usernames.map((u) => u.toLowerCase()))];
  if (!wanted.length) return [];
  const rows = await tx
    .select({ id: users.id, username: users.username })
    .from(users)
    .where(inArray(sql`lower(${users.username})`, wanted));
  const missing = wanted.filter((w) => !rows.some((r) => r.username.toLowerCase() === w));
  if (missing.length) throw badRequest(`user not found: ${missing.slice(0, 10).join(", ")}`, "members");
  return rows.map((r) => r.id);
}

async function assertNameFree(tx: Tx, name: string, exceptId?: number) {
  const [g] = await tx.select({ id: groups.id }).from(groups).where(eq(groups.name, name)).limit(1);
  if (g && g.id !== exceptId) throw conflict("name is already taken", "name");
}

export async function createGroup(actor: Actor, input: GroupInput): Promise<GroupInfo> {
  return transaction(async (tx, emit) => {
    await assertNameFree(tx, input.name);
    const ids = await userIdsFor(tx, input.members);
    const [g] = await tx.insert(groups).values({ name: input.name, isAdmin: input.is_admin }).returning();
    if (ids.length) await tx.insert(groupUsers).values(ids.map((userId) => ({ groupId: g.id, userId })));
    await reconcileAllLocations(tx);
    await recordActivity(tx, actor, { event: "group_added", description: `Added group ${g.name}` });
    emit({ type: "group.changed", groupId: g.id, name: g.name });
    return getGroupInfo(g.name, tx);
  });
}

/** PUT /group/{originalName}: rename, replace members and the admin flag; members survive a rename. */
export async function updateGroup(actor: Actor, originalName: string, input: GroupUpdateInput): Promise<GroupInfo> {
  return transaction(async (tx, emit) => {
    await lockAdmins(tx);
    const g = await requireGroup(tx, originalName);
    if (input.name !== g.name) await assertNameFree(tx, input.name, g.id);
    await tx.update(groups).set({ name: input.name, isAdmin: input.is_admin ?? g.isAdmin }).where(eq(groups.id, g.id));
    if (input.members !== undefined) {
      const ids = await userIdsFor(tx, input.members);
      await tx.delete(groupUsers).where(eq(groupUsers.groupId, g.id));
      if (ids.length) await tx.insert(groupUsers).values(ids.map((userId) => ({ groupId: g.id, userId })));
    }
    await assertAdminRemains(tx);
    await reconcileAllLocations(tx);
    await recordActivity(tx, actor, {
      event: "group_modified",
      description: input.name !== g.name ? `Modified group ${g.name} (now ${input.name})` : `Modified group ${g.name}`,
    });
    emit({ type: "group.changed", groupId: g.id, name: input.name });
    return getGroupInfo(input.name, tx);
  });
}

export async function deleteGroup(actor: Actor, name: string): Promise<void> {
  await transaction(async (tx, emit) => {
    await lockAdmins(tx);
    const g = await requireGroup(tx, name);
    await tx.delete(groups).where(eq(groups.id, g.id));
    await assertAdminRemains(tx);
    await reconcileAllLocations(tx);
    await recordActivity(tx, actor, { event: "group_removed", description: `Removed group ${g.name}` });
    emit({ type: "group.changed", groupId: g.id, name: g.name });
  });
}

export async function addMember(actor: Actor, groupName: string, username: string): Promise<void> {
  await transaction(async (tx, emit) => {
    const g = await requireGroup(tx, groupName);
    const u = await findUserByUsername(tx, username);
    if (!u) throw notFound("user not found");
    await tx.insert(groupUsers).values({ groupId: g.id, userId: u.id }).onConflictDoNothing();
    await reconcileAllLocations(tx);
    await recordActivity(tx, actor, { event: "group_member_added", description: `Added ${u.username} to group ${g.name}` });
    emit({ type: "group.changed", groupId: g.id, name: g.name });
  });
}

export async function removeMember(actor: Actor, groupName: string, username: string): Promise<void> {
  await transaction(async (tx, emit) => {
    await lockAdmins(tx);
    const g = await requireGroup(tx, groupName);
    const u = await findUserByUsername(tx, username);
    if (!u) throw notFound("user not found");
    const removed = await tx
      .delete(groupUsers)
      .where(and(eq(groupUsers.groupId, g.id), eq(groupUsers.userId, u.id)))
      .returning();
    if (!removed.length) throw notFound("user is not a member of this group");
    await assertAdminRemains(tx);
    await reconcileAllLocations(tx);
    await recordActivity(tx, actor, { event: "group_member_removed", description: `Removed ${u.username} from group ${g.name}` });
    emit({ type: "group.changed", groupId: g.id, name: g.name });
  });
}

/** POST /groups-assign: add every listed user to every listed group. */
export async function assignGroups(actor: Actor, groupNames: string[], userIds: number[]): Promise<void> {
  await transaction(async (tx, emit) => {
    const gs = await tx.select().from(groups).where(inArray(groups.name, groupNames));
    const missing = groupNames.filter((n) => !gs.some((g) => g.name === n));
    if (missing.length) throw badRequest(`group not found: ${missing.join(", ")}`, "groups");
    const us = await tx.select({ id: users.id }).from(users).where(inArray(users.id, userIds));
    if (us.length !== new Set(userIds).size) throw badRequest("user not found", "users");
    const values = gs.flatMap((g) => us.map((u) => ({ groupId: g.id, userId: u.id })));
    await tx.insert(groupUsers).values(values).onConflictDoNothing();
    await reconcileAllLocations(tx);
    await recordActivity(tx, actor, {
      event: "groups_bulk_assigned",
      description: `Assigned ${us.length} user(s) to ${gs.map((g) => g.name).join(", ")}`,
    });
    for (const g of gs) emit({ type: "group.changed", groupId: g.id, name: g.name });
  });
}
