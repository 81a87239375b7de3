import "server-only";
import { eq, inArray, sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { aclAliases, aclRuleAliases, aclRuleDevices, aclRuleGroups, aclRuleLocations, aclRuleUsers, aclRules } from "../db/schema";
import { badRequest, conflict, notFound } from "../errors";
import { recordActivity, type Actor } from "../activity/service";
import { transaction, type Emit } from "../events";
import { parseAddressList, parsePortList } from "../net/ranges";
import { formatExpires, parseExpires, type AclAliasInput, type AclRuleInput, type AliasKind, type AliasState, type RuleState } from "./schema";

/** ApiAclRule of defguard 1.6: relations as id lists, destination and ports as text. */
export interface ApiAclRule {
  id: number;
  parent_id: number | null;
  state: RuleState;
  name: string;
  all_networks: boolean;
  networks: number[];
  expires: string | null;
  enabled: boolean;
  allow_all_users: boolean;
  deny_all_users: boolean;
  allow_all_network_devices: boolean;
  deny_all_network_devices: boolean;
  allowed_users: number[];
  denied_users: number[];
  allowed_groups: number[];
  denied_groups: number[];
  allowed_devices: number[];
  denied_devices: number[];
  destination: string;
  aliases: number[];
  ports: string;
  protocols: number[];
}

/** ApiAclAlias of defguard 1.6; `rules` of a pending modification are the rules of the alias it modifies. */
export interface ApiAclAlias {
  id: number;
  parent_id: number | null;
  name: string;
  kind: AliasKind;
  state: AliasState;
  destination: string;
  ports: string;
  protocols: number[];
  rules: number[];
}

type RuleRow = {
  id: number;
  parent_id: number | null;
  state: RuleState;
  name: string;
  all_networks: boolean;
  allow_all_users: boolean;
  deny_all_users: boolean;
  allow_all_network_devices: boolean;
  deny_all_network_devices: boolean;
  destination: string[];
  ports: string[];
  protocols: number[];
  enabled: boolean;
  expires: Date | string | null;
  networks: number[];
  allowed_users: number[];
  denied_users: number[];
  allowed_groups: number[];
  denied_groups: number[];
  allowed_devices: number[];
  denied_devices: number[];
  aliases: number[];
};

const ids = (table: string, col: string, extra = "") =>
  sql.raw(`coalesce((select array_agg(${col} order by ${col}) from ${table} x where x.rule_id = r.id ${extra}), '{}')`);

const ruleSelect = sql`
  select r.id, r.parent_id, r.state, r.name, r.all_networks, r.allow_all_users, r.deny_all_users,
         r.allow_all_network_devices, r.deny_all_network_devices, r.destination, r.ports, r.protocols,
         r.enabled, r.expires,
         ${ids("acl_rule_locations", "location_id")} networks,
         ${ids("acl_rule_users", "user_id", "and x.allow")} allowed_users,
         ${ids("acl_rule_users", "user_id", "and not x.allow")} denied_users,
         ${ids("acl_rule_groups", "group_id", "and x.allow")} allowed_groups,
         ${ids("acl_rule_groups", "group_id", "and not x.allow")} denied_groups,
         ${ids("acl_rule_devices", "device_id", "and x.allow")} allowed_devices,
         ${ids("acl_rule_devices", "device_id", "and not x.allow")} denied_devices,
         ${ids("acl_rule_aliases", "alias_id")} aliases
  from acl_rules r`;

const num = (a: unknown[]) => a.map(Number);

function toApiRule(r: RuleRow): ApiAclRule {
  return {
    id: Number(r.id),
    parent_id: r.parent_id === null ? null : Number(r.parent_id),
    state: r.state,
    name: r.name,
    all_networks: r.all_networks,
    networks: num(r.networks),
    expires: formatExpires(r.expires === null ? null : new Date(r.expires)),
    enabled: r.enabled,
    allow_all_users: r.allow_all_users,
    deny_all_users: r.deny_all_users,
    allow_all_network_devices: r.allow_all_network_devices,
    deny_all_network_devices: r.deny_all_network_devices,
    allowed_users: num(r.allowed_users),
    denied_users: num(r.denied_users),
    allowed_groups: num(r.allowed_groups),
    denied_groups: num(r.denied_groups),
    allowed_devices: num(r.allowed_devices),
    denied_devices: num(r.denied_devices),
    destination: r.destination.join(", "),
    aliases: num(r.aliases),
    ports: r.ports.join(", "),
    protocols: num(r.protocols),
  };
}

/** Rules as the API sends them (all, or the given ids), ordered by id. */
export async function loadRules(tx: Tx = getDb(), only?: number[]): Promise<ApiAclRule[]> {
  const where = only ? sql` where r.id = any(${sql.param(only)}::int[])` : sql``;
  const res = await tx.execute<RuleRow>(sql`${ruleSelect}${where} order by r.id`);
  return res.rows.map(toApiRule);
}

export const listRules = () => loadRules();

export async function getRule(id: number, tx: Tx = getDb()): Promise<ApiAclRule> {
  const [r] = await loadRules(tx, [id]);
  if (!r) throw notFound("ACL rule not found");
  return r;
}

type AliasRow = {
  id: number;
  parent_id: number | null;
  name: string;
  kind: AliasKind;
  state: AliasState;
  destination: string[];
  ports: string[];
  protocols: number[];
  rules: number[];
};

const aliasSelect = sql`
  select a.id, a.parent_id, a.name, a.kind, a.state, a.destination, a.ports, a.protocols,
         coalesce((select array_agg(distinct ra.rule_id order by ra.rule_id) from acl_rule_aliases ra
                   where ra.alias_id = coalesce(a.parent_id, a.id)), '{}') rules
  from acl_aliases a`;

function toApiAlias(a: AliasRow): ApiAclAlias {
  return {
    id: Number(a.id),
    parent_id: a.parent_id === null ? null : Number(a.parent_id),
    name: a.name,
    kind: a.kind,
    state: a.state,
    destination: a.destination.join(", "),
    ports: a.ports.join(", "),
    protocols: num(a.protocols),
    rules: num(a.rules),
  };
}

export async function loadAliases(tx: Tx = getDb(), only?: number[]): Promise<ApiAclAlias[]> {
  const where = only ? sql` where a.id = any(${sql.param(only)}::int[])` : sql``;
  const res = await tx.execute<AliasRow>(sql`${aliasSelect}${where} order by a.id`);
  return res.rows.map(toApiAlias);
}

export const listAliases = () => loadAliases();

export async function getAlias(id: number, tx: Tx = getDb()): Promise<ApiAclAlias> {
  const [a] = await loadAliases(tx, [id]);
  if (!a) throw notFound("ACL alias not found");
  return a;
}

// ---------------------------------------------------------------------------------------------
// Input → stored form

/** Canonical destination entries; the schema has already refused bad text, this is the backstop. */
function destinationEntries(text: string, field = "destination"): string[] {
  const r = parseAddressList(text);
  if (!r.ok) throw badRequest(`invalid entry "${r.entry}"`, field);
  return [...new Set(r.entries.map((e) => e.text))];
}

function portEntries(text: string, field = "ports"): string[] {
  const r = parsePortList(text);
  if (!r.ok) throw badRequest(`invalid entry "${r.entry}"`, field);
  return [...new Set(r.entries.map((e) => e.text))];
}

const uniq = (a: number[]) => [...new Set(a)].sort((x, y) => x - y);

/** 400 naming the field and the ids that do not exist. */
async function assertExist(tx: Tx, table: string, field: string, list: number[]) {
  if (!list.length) return;
  const want = uniq(list);
  // KEY SHARE: a concurrent delete of a referenced row waits for this transaction (no FK error later).
  const res = await tx.execute<{ id: number }>(sql`select id from ${sql.identifier(table)} where id = any(${sql.param(want)}::int[]) for key share`);
  const found = new Set(res.rows.map((r) => Number(r.id)));
  const missing = want.filter((id) => !found.has(id));
  if (missing.length) throw badRequest(`unknown id${missing.length > 1 ? "s" : ""} ${missing.slice(0, 10).join(", ")}`, field);
}

async function checkRuleRefs(tx: Tx, input: AclRuleInput) {
  await assertExist(tx, "locations", "networks", input.networks);
  await assertExist(tx, "users", "allowed_users", input.allowed_users);
  await assertExist(tx, "users", "denied_users", input.denied_users);
  await assertExist(tx, "groups", "allowed_groups", input.allowed_groups);
  await assertExist(tx, "groups", "denied_groups", input.denied_groups);
  await assertExist(tx, "devices", "allowed_devices", input.allowed_devices);
  await assertExist(tx, "devices", "denied_devices", input.denied_devices);
  await assertExist(tx, "acl_aliases", "aliases", input.aliases);
  if (input.aliases.length) {
    const pending = await tx.select({ id: aclAliases.id }).from(aclAliases).where(sql`${aclAliases.id} = any(${sql.param(uniq(input.aliases))}::int[]) and ${aclAliases.state} <> 'applied'`).for("share");
    if (pending.length) throw badRequest(`alias ${pending.map((p) => p.id).join(", ")} is a pending change, not an applied alias`, "aliases");
  }
}

function ruleValues(input: AclRuleInput) {
  const expires = input.expires === null ? null : parseExpires(input.expires);
  return {
    name: input.name,
    allNetworks: input.all_networks,
    allowAllUsers: input.allow_all_users,
    denyAllUsers: input.deny_all_users,
    allowAllNetworkDevices: input.allow_all_network_devices,
    denyAllNetworkDevices: input.deny_all_network_devices,
    destination: destinationEntries(input.destination),
    ports: portEntries(input.ports),
    protocols: uniq(input.protocols),
    enabled: input.enabled,
    expires,
  };
}

async function writeRelations(tx: Tx, ruleId: number, input: Pick<AclRuleInput, "networks" | "allowed_users" | "denied_users" | "allowed_groups" | "denied_groups" | "allowed_devices" | "denied_devices" | "aliases">) {
  const both = <T>(allowed: number[], denied: number[], make: (id: number, allow: boolean) => T) => [...uniq(allowed).map((id) => make(id, true)), ...uniq(denied).map((id) => make(id, false))];
  if (input.networks.length) await tx.insert(aclRuleLocations).values(uniq(input.networks).map((locationId) => ({ ruleId, locationId })));
  const us = both(input.allowed_users, input.denied_users, (userId, allow) => ({ ruleId, userId, allow }));
  if (us.length) await tx.insert(aclRuleUsers).values(us);
  const gs = both(input.allowed_groups, input.denied_groups, (groupId, allow) => ({ ruleId, groupId, allow }));
  if (gs.length) await tx.insert(aclRuleGroups).values(gs);
  const ds = both(input.allowed_devices, input.denied_devices, (deviceId, allow) => ({ ruleId, deviceId, allow }));
  if (ds.length) await tx.insert(aclRuleDevices).values(ds);
  if (input.aliases.length) await tx.insert(aclRuleAliases).values(uniq(input.aliases).map((aliasId) => ({ ruleId, aliasId })));
}

async function deleteRelations(tx: Tx, ruleId: number) {
  await tx.delete(aclRuleLocations).where(eq(aclRuleLocations.ruleId, ruleId));
  await tx.delete(aclRuleUsers).where(eq(aclRuleUsers.ruleId, ruleId));
  await tx.delete(aclRuleGroups).where(eq(aclRuleGroups.ruleId, ruleId));
  await tx.delete(aclRuleDevices).where(eq(aclRuleDevices.ruleId, ruleId));
  await tx.delete(aclRuleAliases).where(eq(aclRuleAliases.ruleId, ruleId));
}

async function lockRule(tx: Tx, id: number) {
  const [r] = await tx.select().from(aclRules).where(eq(aclRules.id, id)).for("update").limit(1);
  if (!r) throw notFound("ACL rule not found");
  return r;
}

async function lockAlias(tx: Tx, id: number) {
  const [a] = await tx.select().from(aclAliases).where(eq(aclAliases.id, id)).for("update").limit(1);
  if (!a) throw notFound("ACL alias not found");
  return a;
}

/** Locations whose compiled firewall a rule (as stored now) can change. */
async function ruleLocations(tx: Tx, ruleIds: number[]): Promise<number[] | "all"> {
  if (!ruleIds.length) return [];
  const res = await tx.execute<{ all_networks: boolean; networks: number[] }>(sql`
    select r.all_networks, coalesce((select array_agg(location_id) from acl_rule_locations x where x.rule_id = r.id), '{}') networks
    from acl_rules r where r.id = any(${sql.param(ruleIds)}::int[])`);
  if (res.rows.some((r) => r.all_networks)) return "all";
  return uniq(res.rows.flatMap((r) => num(r.networks)));
}

function mergeLocations(a: number[] | "all", b: number[] | "all"): number[] | "all" {
  return a === "all" || b === "all" ? "all" : uniq([...a, ...b]);
}

export function emitAclChanged(emit: Emit, locations: number[] | "all") {
  if (locations === "all" || locations.length) emit({ type: "acl.changed", locationIds: locations });
}

// ---------------------------------------------------------------------------------------------
// Rules: state machine (docs/acl.md)

/** POST /acl/rule: a new rule, pending until deployed. */
export async function createRule(actor: Actor, input: AclRuleInput): Promise<ApiAclRule> {
  return transaction(async (tx) => {
    await checkRuleRefs(tx, input);
    const [r] = await tx.insert(aclRules).values({ ...ruleValues(input), state: "new" }).returning({ id: aclRules.id });
    await writeRelations(tx, r.id, input);
    await recordActivity(tx, actor, { event: "acl_rule_added", description: `Added ACL rule ${input.name} (${r.id})` });
    return getRule(r.id, tx);
  });
}

/**
 * PUT /acl/rule/{id}. An applied (or expired) rule keeps working while its change waits: the
 * change is a new "modified" row pointing at it (replacing an earlier pending change). A new or
 * modified rule is edited in place. A rule marked for deletion cannot be edited (409).
 */
export async function updateRule(actor: Actor, id: number, input: AclRuleInput): Promise<ApiAclRule> {
  return transaction(async (tx) => {
    const existing = await lockRule(tx, id);
    if (existing.state === "deleted") throw conflict(`rule ${id} is marked for deletion; discard the deletion before editing it`, "id");
    await checkRuleRefs(tx, input);
    let ruleId = id;
    if (existing.state === "applied" || existing.state === "expired") {
      await tx.delete(aclRules).where(eq(aclRules.parentId, id));
      const [r] = await tx.insert(aclRules).values({ ...ruleValues(input), state: "modified", parentId: id }).returning({ id: aclRules.id });
      ruleId = r.id;
    } else {
      await tx.update(aclRules).set(ruleValues(input)).where(eq(aclRules.id, id));
      await deleteRelations(tx, id);
    }
    await writeRelations(tx, ruleId, input);
    await recordActivity(tx, actor, { event: "acl_rule_modified", description: `Modified ACL rule ${input.name} (${id})` });
    return getRule(ruleId, tx);
  });
}

/**
 * DELETE /acl/rule/{id}. An applied (or expired) rule is marked: a "deleted" row pointing at it
 * replaces any pending change, and deploying it removes both. A pending row (new, modified,
 * deleted) is discarded at once; the applied rule it points at stays as it is.
 */
export async function deleteRule(actor: Actor, id: number): Promise<void> {
  await transaction(async (tx) => {
    const existing = await lockRule(tx, id);
    if (existing.state === "applied" || existing.state === "expired") {
      const [info] = await loadRules(tx, [id]);
      await tx.delete(aclRules).where(eq(aclRules.parentId, id));
      const { id: _id, createdAt: _c, ...copy } = existing;
      const [r] = await tx.insert(aclRules).values({ ...copy, state: "deleted", parentId: id }).returning({ id: aclRules.id });
      await writeRelations(tx, r.id, info);
      await recordActivity(tx, actor, { event: "acl_rule_removed", description: `Marked ACL rule ${existing.name} (${id}) for deletion` });
    } else {
      await tx.delete(aclRules).where(eq(aclRules.id, id));
      await recordActivity(tx, actor, { event: "acl_rule_removed", description: `Discarded pending ACL rule ${existing.name} (${id}, ${existing.state})` });
    }
  });
}

/**
 * Deploy pending rules inside `tx`: new/modified become applied (a modification replaces its
 * parent), deleted ones are removed with their parent. Unknown ids: 400; a rule with nothing
 * pending (applied, expired): 409. Returns the locations whose firewall may change.
 */
export async function applyRulesIn(tx: Tx, ruleIds: number[]): Promise<number[] | "all"> {
  const want = uniq(ruleIds);
  const rows = await tx.select().from(aclRules).where(inArray(aclRules.id, want)).for("update");
  const missing = want.filter((id) => !rows.some((r) => r.id === id));
  if (missing.length) throw badRequest(`unknown rule${missing.length > 1 ? "s" : ""} ${missing.join(", ")}`, "rules");
  const done = rows.filter((r) => r.state === "applied" || r.state === "expired");
  if (done.length) throw conflict(`rules: rule ${done.map((r) => r.id).join(", ")} ${done.length > 1 ? "are" : "is"} already applied`, "rules");
  const parents = rows.map((r) => r.parentId).filter((p): p is number => p !== null);
  let affected = mergeLocations(await ruleLocations(tx, want), await ruleLocations(tx, parents));
  for (const r of rows) {
    if (r.state === "deleted") {
      await tx.delete(aclRules).where(eq(aclRules.id, r.id));
      if (r.parentId !== null) await tx.delete(aclRules).where(eq(aclRules.id, r.parentId));
    } else {
      await tx.update(aclRules).set({ state: "applied", parentId: null }).where(eq(aclRules.id, r.id));
      if (r.parentId !== null) await tx.delete(aclRules).where(eq(aclRules.id, r.parentId));
    }
  }
  affected = mergeLocations(affected, []);
  return affected;
}

/** PUT /acl/rule/apply {rules}. */
export async function applyRules(actor: Actor, ruleIds: number[]): Promise<void> {
  await transaction(async (tx, emit) => {
    const locations = await applyRulesIn(tx, ruleIds);
    await recordActivity(tx, actor, { event: "acl_rules_applied", description: `Deployed ACL rules ${uniq(ruleIds).join(", ")}` });
    emitAclChanged(emit, locations);
  });
}

// ---------------------------------------------------------------------------------------------
// Aliases

function aliasValues(input: AclAliasInput) {
  return {
    name: input.name,
    kind: input.kind,
    destination: destinationEntries(input.destination),
    ports: portEntries(input.ports),
    protocols: uniq(input.protocols),
  };
}

/** POST /acl/alias: usable by rules at once (no rule uses it yet). */
export async function createAlias(actor: Actor, input: AclAliasInput): Promise<ApiAclAlias> {
  return transaction(async (tx) => {
    const [a] = await tx.insert(aclAliases).values({ ...aliasValues(input), state: "applied" }).returning({ id: aclAliases.id });
    await recordActivity(tx, actor, { event: "acl_alias_added", description: `Added ACL alias ${input.name} (${a.id})` });
    return getAlias(a.id, tx);
  });
}

/**
 * PUT /acl/alias/{id}. An applied alias gets a pending "modified" copy (the answer's `rules`
 * lists the rules that deploying it will change); a modified copy is edited in place.
 */
export async function updateAlias(actor: Actor, id: number, input: AclAliasInput): Promise<ApiAclAlias> {
  return transaction(async (tx) => {
    const existing = await lockAlias(tx, id);
    let aliasId = id;
    if (existing.state === "applied") {
      await tx.delete(aclAliases).where(eq(aclAliases.parentId, id));
      const [a] = await tx.insert(aclAliases).values({ ...aliasValues(input), state: "modified", parentId: id }).returning({ id: aclAliases.id });
      aliasId = a.id;
    } else {
      await tx.update(aclAliases).set(aliasValues(input)).where(eq(aclAliases.id, id));
    }
    await recordActivity(tx, actor, { event: "acl_alias_modified", description: `Modified ACL alias ${input.name} (${id})` });
    return getAlias(aliasId, tx);
  });
}

/**
 * DELETE /acl/alias/{id}. A pending modification is discarded. An applied alias used by any
 * rule (pending rules included) is refused with 409 naming the rules; otherwise it goes with
 * its pending modification.
 */
export async function deleteAlias(actor: Actor, id: number): Promise<void> {
  await transaction(async (tx) => {
    const existing = await lockAlias(tx, id);
    if (existing.state === "applied") {
      const used = await tx.selectDistinct({ id: aclRuleAliases.ruleId }).from(aclRuleAliases).where(eq(aclRuleAliases.aliasId, id));
      if (used.length) throw conflict(`alias ${id} is used by rule${used.length > 1 ? "s" : ""} ${uniq(used.map((u) => u.id)).join(", ")}`, "id");
    }
    await tx.delete(aclAliases).where(eq(aclAliases.id, id));
    await recordActivity(tx, actor, { event: "acl_alias_removed", description: existing.state === "applied" ? `Removed ACL alias ${existing.name} (${id})` : `Discarded pending change of ACL alias ${existing.name} (${id})` });
  });
}

/** Deploy pending alias changes inside `tx`; returns the locations whose firewall may change. */
export async function applyAliasesIn(tx: Tx, aliasIds: number[]): Promise<number[] | "all"> {
  const want = uniq(aliasIds);
  const rows = await tx.select().from(aclAliases).where(inArray(aclAliases.id, want)).for("update");
  const missing = want.filter((id) => !rows.some((r) => r.id === id));
  if (missing.length) throw badRequest(`unknown alias${missing.length > 1 ? "es" : ""} ${missing.join(", ")}`, "aliases");
  const done = rows.filter((r) => r.state === "applied");
  if (done.length) throw conflict(`aliases: alias ${done.map((r) => r.id).join(", ")} ${done.length > 1 ? "are" : "is"} already applied`, "aliases");
  const ruleIds: number[] = [];
  for (const a of rows) {
    await tx.update(aclAliases).set({ state: "applied", parentId: null }).where(eq(aclAliases.id, a.id));
    if (a.parentId !== null) {
      const moved = await tx.update(aclRuleAliases).set({ aliasId: a.id }).where(eq(aclRuleAliases.aliasId, a.parentId)).returning({ ruleId: aclRuleAliases.ruleId });
      ruleIds.push(...moved.map((m) => m.ruleId));
      await tx.delete(aclAliases).where(eq(aclAliases.id, a.parentId));
    }
  }
  return ruleLocations(tx, uniq(ruleIds));
}

/** PUT /acl/alias/apply {aliases}. */
export async function applyAliases(actor: Actor, aliasIds: number[]): Promise<void> {
  await transaction(async (tx, emit) => {
    const locations = await applyAliasesIn(tx, aliasIds);
    await recordActivity(tx, actor, { event: "acl_aliases_applied", description: `Deployed ACL aliases ${uniq(aliasIds).join(", ")}` });
    emitAclChanged(emit, locations);
  });
}

/**
 * The expiry job: applied rules whose expiry has passed become "expired" and their locations
 * are recompiled. Idempotent; returns the rules it expired.
 */
export async function expireRules(now: Date = new Date()): Promise<number[]> {
  return transaction(async (tx, emit) => {
    const rows = await tx
      .update(aclRules)
      .set({ state: "expired" })
      .where(sql`${aclRules.state} = 'applied' and ${aclRules.expires} is not null and ${aclRules.expires} <= ${now.toISOString()}::timestamptz`)
      .returning({ id: aclRules.id });
    const expired = rows.map((r) => r.id);
    if (expired.length) emitAclChanged(emit, await ruleLocations(tx, expired));
    return expired;
  });
}
