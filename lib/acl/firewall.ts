import "server-only";
import { sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { compileFirewall, type CompileAlias, type CompileDevice, type CompileInput, type CompileRule, type Compiled, type WireFirewallConfig } from "./compile";

export interface LocationAcl {
  id: number;
  name: string;
  address: string[];
  aclEnabled: boolean;
  defaultAllow: boolean;
}

async function locationAcl(tx: Tx, locationId: number): Promise<LocationAcl | null> {
  const r = await tx.execute<{ id: number; name: string; address: string[]; acl_enabled: boolean; acl_default_allow: boolean }>(
    sql`select id, name, address, acl_enabled, acl_default_allow from locations where id = ${locationId}`,
  );
  const l = r.rows[0];
  return l ? { id: Number(l.id), name: l.name, address: l.address, aclEnabled: l.acl_enabled, defaultAllow: l.acl_default_allow } : null;
}

type Row = {
  id: number;
  name: string;
  allow_all_users: boolean;
  deny_all_users: boolean;
  allow_all_network_devices: boolean;
  deny_all_network_devices: boolean;
  destination: string[];
  ports: string[];
  protocols: number[];
  allowed_users: number[] | null;
  denied_users: number[] | null;
  allowed_groups: number[] | null;
  denied_groups: number[] | null;
  allowed_devices: number[] | null;
  denied_devices: number[] | null;
  aliases: number[] | null;
};

const n = (a: unknown[] | null) => (a ?? []).map(Number);

/**
 * Everything the compiler needs for one location, read in one snapshot: the applied, enabled,
 * unexpired rules that apply there (all locations or this one), their aliases, the location's
 * devices and the members of the groups the rules name.
 */
export async function compileInput(tx: Tx, loc: LocationAcl): Promise<CompileInput> {
  const rules = await tx.execute<Row>(sql`
    with r as (
      select r.* from acl_rules r
      where r.state = 'applied' and r.enabled and (r.expires is null or r.expires > now())
        and (r.all_networks or exists (select 1 from acl_rule_locations x where x.rule_id = r.id and x.location_id = ${loc.id}))
    )
    select r.id, r.name, r.allow_all_users, r.deny_all_users, r.allow_all_network_devices, r.deny_all_network_devices,
           r.destination, r.ports, r.protocols,
           (select array_agg(user_id) from acl_rule_users x where x.rule_id = r.id and x.allow) allowed_users,
           (select array_agg(user_id) from acl_rule_users x where x.rule_id = r.id and not x.allow) denied_users,
           (select array_agg(group_id) from acl_rule_groups x where x.rule_id = r.id and x.allow) allowed_groups,
           (select array_agg(group_id) from acl_rule_groups x where x.rule_id = r.id and not x.allow) denied_groups,
           (select array_agg(device_id) from acl_rule_devices x where x.rule_id = r.id and x.allow) allowed_devices,
           (select array_agg(device_id) from acl_rule_devices x where x.rule_id = r.id and not x.allow) denied_devices,
           (select array_agg(alias_id) from acl_rule_aliases x where x.rule_id = r.id) aliases
    from r order by r.id`);
  const compileRules: CompileRule[] = rules.rows.map((r) => ({
    id: Number(r.id),
    name: r.name,
    allowAllUsers: r.allow_all_users,
    denyAllUsers: r.deny_all_users,
    allowAllNetworkDevices: r.allow_all_network_devices,
    denyAllNetworkDevices: r.deny_all_network_devices,
    allowedUsers: n(r.allowed_users),
    deniedUsers: n(r.denied_users),
    allowedGroups: n(r.allowed_groups),
    deniedGroups: n(r.denied_groups),
    allowedDevices: n(r.allowed_devices),
    deniedDevices: n(r.denied_devices),
    destination: r.destination,
    ports: r.ports,
    protocols: n(r.protocols),
    aliases: n(r.aliases),
  }));

  const aliasIds = [...new Set(compileRules.flatMap((r) => r.aliases))];
  const aliases = new Map<number, CompileAlias>();
  if (aliasIds.length) {
    const res = await tx.execute<{ id: number; name: string; kind: "destination" | "component"; destination: string[]; ports: string[]; protocols: number[] }>(
      sql`select id, name, kind, destination, ports, protocols from acl_aliases where id = any(${sql.param(aliasIds)}::int[])`,
    );
    for (const a of res.rows) aliases.set(Number(a.id), { id: Number(a.id), name: a.name, kind: a.kind, destination: a.destination, ports: a.ports, protocols: n(a.protocols) });
  }

  const groupIds = [...new Set(compileRules.flatMap((r) => [...r.allowedGroups, ...r.deniedGroups]))];
  const groupMembers = new Map<number, number[]>();
  if (groupIds.length) {
    const res = await tx.execute<{ group_id: number; users: number[] }>(
      sql`select group_id, array_agg(user_id) users from group_users where group_id = any(${sql.param(groupIds)}::int[]) group by group_id`,
    );
    for (const g of res.rows) groupMembers.set(Number(g.group_id), n(g.users));
  }

  const devices = compileRules.length ? await locationDevices(tx, loc.id) : [];
  return { addresses: loc.address, defaultAllow: loc.defaultAllow, rules: compileRules, aliases, devices, groupMembers };
}

/** The location's devices with their addresses there; a device is active when it is a peer candidate. */
export async function locationDevices(tx: Tx, locationId: number): Promise<(CompileDevice & { name: string; username: string })[]> {
  const res = await tx.execute<{ id: number; name: string; user_id: number; username: string; device_type: "user" | "network"; active: boolean; ips: string[] }>(sql`
    select d.id, d.name, d.user_id, u.username, d.device_type,
           (d.configured and d.wireguard_pubkey is not null and (d.device_type = 'network' or u.is_active)) active, dl.ips
    from device_locations dl join devices d on d.id = dl.device_id join users u on u.id = d.user_id
    where dl.location_id = ${locationId}
    order by d.id`);
  return res.rows.map((d) => ({ id: Number(d.id), name: d.name, userId: Number(d.user_id), username: d.username, type: d.device_type, active: d.active, ips: d.ips }));
}

/** The compiled firewall of a location with its inputs, or null when the location does not exist. */
export async function compileLocation(locationId: number, tx: Tx = getDb()): Promise<{ location: LocationAcl; compiled: Compiled | null } | null> {
  const loc = await locationAcl(tx, locationId);
  if (!loc) return null;
  if (!loc.aclEnabled) return { location: loc, compiled: null };
  return { location: loc, compiled: compileFirewall(await compileInput(tx, loc)) };
}

/**
 * The FirewallConfig a location's gateways get, or null when ACL is off there (then they get
 * none and remove their table).
 */
export async function locationFirewall(locationId: number, tx: Tx = getDb()): Promise<WireFirewallConfig | null> {
  const r = await compileLocation(locationId, tx);
  return r?.compiled?.config ?? null;
}
