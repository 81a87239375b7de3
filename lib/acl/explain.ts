import "server-only";
import { sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { AppError, badRequest } from "../errors";
import { transaction } from "../events";
import { intervalText, type Interval } from "../net/ranges";
import { parseIp, type IpVersion } from "../net/ip";
import { evaluate, prepareRules, ruleMatches, type Compiled, type Packet, type PreparedRule } from "./compile";
import { compileLocation, locationDevices, type LocationAcl } from "./firewall";
import { applyAliasesIn, applyRulesIn } from "./service";
import type { AclCheckQuery, AclImpactQuery } from "./schema";


/**
 * Why, as a code the console translates (`reason` is the same in English, for API clients):
 * rule_allow / rule_deny (the `rule`, through `alias` when a destination alias decides),
 * default_allow / default_deny (no rule matches), acl_off, not_peer (user disabled or device
 * not configured), no_address (no source address of the destination's IP family).
 */
export type ReasonCode = "rule_allow" | "rule_deny" | "default_allow" | "default_deny" | "acl_off" | "not_peer" | "no_address";

export interface CheckVerdict {
  allowed: boolean;
  rule: { id: number; name: string } | null;
  reason: string;
  reason_code: ReasonCode;
  /** The destination alias through which `rule` decides, if any. */
  alias: { id: number; name: string } | null;
}

export interface CheckAnswer extends CheckVerdict {
  /** One verdict per device checked (the user's devices in the location, or the one device). */
  devices: (CheckVerdict & { id: number; name: string; source: string | null })[];
}

type Dev = Awaited<ReturnType<typeof locationDevices>>[number];

function firstIp(d: Dev, version: IpVersion): bigint | null {
  for (const t of d.ips) {
    const ip = parseIp(t.includes("/") ? t.slice(0, t.indexOf("/")) : t);
    if (ip && ip.version === version) return ip.value;
  }
  return null;
}

/** The verdict for one packet against the compiled config, naming the ACL rule that decides. */
export function verdictFor(compiled: Compiled, prepared: PreparedRule[], p: Packet): CheckVerdict {
  const { allowed, index } = evaluate(prepared, compiled.config.default_policy === "ALLOW", p);
  if (index < 0) {
    return { allowed, rule: null, alias: null, reason: `default policy (${allowed ? "allow" : "deny"}): no rule matches`, reason_code: allowed ? "default_allow" : "default_deny" };
  }
  const o = compiled.origins[index];
  const via = o.aliasId !== null ? ` (destination alias "${o.aliasName}")` : "";
  return {
    allowed,
    rule: { id: o.ruleId, name: o.ruleName },
    alias: o.aliasId !== null ? { id: o.aliasId, name: o.aliasName ?? "" } : null,
    reason: allowed ? `allowed by rule "${o.ruleName}"${via}` : `denied by rule "${o.ruleName}"${via}: the source is not among its allowed users, groups or devices`,
    reason_code: allowed ? "rule_allow" : "rule_deny",
  };
}

/**
 * GET /acl/check: would the gateway of `location` let this user's devices (or this device) reach
 * destination:port over protocol? Evaluated on the very FirewallConfig the gateway gets.
 */
export async function checkAccess(q: AclCheckQuery, tx: Tx = getDb()): Promise<CheckAnswer> {
  const dst = parseIp(q.destination.trim());
  if (!dst) throw badRequest("enter a single IP address", "destination");
  const protocol = q.protocol ?? (q.port !== undefined ? 6 : 1);
  if (protocol !== 1 && q.port === undefined) throw badRequest("field is required for TCP and UDP", "port");

  const r = await compileLocation(q.location, tx);
  if (!r) throw badRequest(`unknown id ${q.location}`, "location");
  const all = await locationDevices(tx, q.location);
  let devices: Dev[];
  if (q.device !== undefined) {
    const d = all.find((x) => x.id === q.device);
    if (!d) {
      const exists = await tx.execute(sql`select 1 from devices where id = ${q.device}`);
      throw badRequest(exists.rows.length ? `device ${q.device} has no address in location ${q.location}` : `unknown id ${q.device}`, "device");
    }
    devices = [d];
  } else {
    const u = await tx.execute<{ id: number }>(sql`select id from users where lower(username) = lower(${q.user!})`);
    if (!u.rows.length) throw badRequest(`unknown user ${q.user}`, "user");
    const userId = Number(u.rows[0].id);
    devices = all.filter((d) => d.userId === userId && d.type === "user");
    if (!devices.length) throw badRequest(`user ${q.user} has no device in location ${q.location}`, "user");
  }

  const verdicts: CheckAnswer["devices"] = [];
  for (const d of devices) {
    const base = { id: d.id, name: d.name };
    if (!d.active) {
      verdicts.push({ ...base, source: null, allowed: false, rule: null, alias: null, reason_code: "not_peer", reason: "the device is not a peer of this location (its user is disabled or it is not configured)" });
      continue;
    }
    const src = firstIp(d, dst.version);
    if (src === null) {
      verdicts.push({ ...base, source: null, allowed: false, rule: null, alias: null, reason_code: "no_address", reason: `the device has no IPv${dst.version} address in this location` });
      continue;
    }
    const source = intervalText({ start: src, end: src }, dst.version);
    if (!r.compiled) {
      verdicts.push({ ...base, source, allowed: true, rule: null, alias: null, reason_code: "acl_off", reason: "ACL is off in this location: the gateway does not filter traffic" });
      continue;
    }
    const prepared = prepareRules(r.compiled.config);
    verdicts.push({ ...base, source, ...verdictFor(r.compiled, prepared, { version: dst.version, source: src, destination: dst.value, protocol, port: q.port ?? null }) });
  }
  // For a user: allowed when one of their devices is; the first allowed device's verdict speaks.
  const lead = verdicts.find((v) => v.allowed) ?? verdicts[0];
  return { allowed: lead.allowed, rule: lead.rule, alias: lead.alias, reason: lead.reason, reason_code: lead.reason_code, devices: verdicts };
}

// ---------------------------------------------------------------------------------------------
// Impact preview

export interface ImpactPair {
  device_id: number;
  device_name: string;
  username: string;
  destination: string;
  /** "22", "8000-9000"; null = every port (or ICMP). */
  ports: string | null;
  protocol: "TCP" | "UDP" | "ICMP";
}

export interface LocationImpact {
  location_id: number;
  location_name: string;
  gained: number;
  lost: number;
  devices_gaining: number;
  devices_losing: number;
  gains: ImpactPair[];
  losses: ImpactPair[];
}

export interface ImpactAnswer {
  rules: number[];
  aliases: number[];
  locations: LocationImpact[];
}

const PAIR_LIMIT = 100;
const MAX: Record<IpVersion, bigint> = { 4: (1n << 32n) - 1n, 6: (1n << 128n) - 1n };

/** Elementary segments of [lo, hi] cut at every interval boundary in `lists`. */
function segments(lists: (Interval[] | null)[], lo: bigint, hi: bigint): Interval[] {
  const cuts = new Set<bigint>([lo]);
  for (const l of lists) {
    if (!l) continue;
    for (const i of l) {
      if (i.start > lo && i.start <= hi) cuts.add(i.start);
      if (i.end + 1n > lo && i.end + 1n <= hi) cuts.add(i.end + 1n);
    }
  }
  const sorted = [...cuts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sorted.map((s, k) => ({ start: s, end: k + 1 < sorted.length ? sorted[k + 1] - 1n : hi }));
}

type Side = { prepared: PreparedRule[]; defaultAllow: boolean } | null;

/** Whether `p` passes: no firewall (ACL off) lets everything through. */
function passes(side: Side, p: Packet): boolean {
  return side === null ? true : evaluate(side.prepared, side.defaultAllow, p).allowed;
}

function diffLocation(loc: LocationAcl, devices: Dev[], before: Side, after: Side): LocationImpact {
  const out: LocationImpact = { location_id: loc.id, location_name: loc.name, gained: 0, lost: 0, devices_gaining: 0, devices_losing: 0, gains: [], losses: [] };
  const protos: [number, "TCP" | "UDP" | "ICMP"][] = [
    [6, "TCP"],
    [17, "UDP"],
    [1, "ICMP"],
  ];
  for (const d of devices) {
    if (!d.active) continue;
    let gainedHere = false;
    let lostHere = false;
    for (const version of [4, 6] as IpVersion[]) {
      const src = firstIp(d, version);
      if (src === null) continue;
      const probe = (rules: PreparedRule[]) => rules.filter((r) => r.version === version && ruleMatches({ ...r, dst: null, protocols: null, ports: null }, { version, source: src, destination: 0n, protocol: 6, port: 1 }));
      const relevant = [...(before ? probe(before.prepared) : []), ...(after ? probe(after.prepared) : [])];
      const dsts = segments(relevant.map((r) => r.dst), 0n, MAX[version]);
      const ports = segments(relevant.map((r) => r.ports), 1n, 65535n);
      for (const [num, name] of protos) {
        const portCells = num === 1 ? [null] : ports;
        for (const pc of portCells) {
          // Consecutive destination segments with the same change are reported as one range.
          let run: { start: bigint; end: bigint; gain: boolean } | null = null;
          const flush = () => {
            if (!run) return;
            const pair: ImpactPair = {
              device_id: d.id,
              device_name: d.name,
              username: d.username,
              destination: intervalText(run, version),
              ports: pc === null || (pc.start === 1n && pc.end === 65535n) ? null : pc.start === pc.end ? String(pc.start) : `${pc.start}-${pc.end}`,
              protocol: name,
            };
            if (run.gain) {
              out.gained++;
              gainedHere = true;
              if (out.gains.length < PAIR_LIMIT) out.gains.push(pair);
            } else {
              out.lost++;
              lostHere = true;
              if (out.losses.length < PAIR_LIMIT) out.losses.push(pair);
            }
            run = null;
          };
          for (const seg of dsts) {
            const p: Packet = { version, source: src, destination: seg.start, protocol: num, port: pc === null ? null : Number(pc.start) };
            const was = passes(before, p);
            const will = passes(after, p);
            if (was === will) {
              flush();
              continue;
            }
            const gain = will;
            if (run && run.gain === gain && run.end + 1n === seg.start) run.end = seg.end;
            else {
              flush();
              run = { start: seg.start, end: seg.end, gain };
            }
          }
          flush();
        }
      }
    }
    if (gainedHere) out.devices_gaining++;
    if (lostHere) out.devices_losing++;
  }
  return out;
}

class Rollback extends Error {
  constructor(readonly value: Map<number, Side>) {
    super("rollback");
  }
}

const sideOf = (c: Compiled | null): Side => (c ? { prepared: prepareRules(c.config), defaultAllow: c.config.default_policy === "ALLOW" } : null);

/**
 * GET /acl/impact: per location with ACL on, which devices would gain or lose access to which
 * destinations if the given pending rules and aliases (none given: every pending change) were
 * deployed. The deployment is run for real in a transaction that is rolled back, so the preview
 * compiles exactly what a deploy would.
 */
export async function aclImpact(q: AclImpactQuery): Promise<ImpactAnswer> {
  const db = getDb();
  let ruleIds = q.rules ?? [];
  let aliasIds = q.aliases ?? [];
  if (!ruleIds.length && !aliasIds.length) {
    const pr = await db.execute<{ id: number }>(sql`select id from acl_rules where state in ('new', 'modified', 'deleted') order by id`);
    const pa = await db.execute<{ id: number }>(sql`select id from acl_aliases where state = 'modified' order by id`);
    ruleIds = pr.rows.map((r) => Number(r.id));
    aliasIds = pa.rows.map((r) => Number(r.id));
  }
  const locs = await db.execute<{ id: number }>(sql`select id from locations where acl_enabled order by id`);
  const locationIds = locs.rows.map((r) => Number(r.id));

  const before = new Map<number, { loc: LocationAcl; side: Side; devices: Dev[] }>();
  for (const id of locationIds) {
    const r = await compileLocation(id, db);
    if (r) before.set(id, { loc: r.location, side: sideOf(r.compiled), devices: await locationDevices(db, id) });
  }

  let after: Map<number, Side>;
  try {
    await transaction(async (tx) => {
      if (aliasIds.length) await applyAliasesIn(tx, aliasIds);
      if (ruleIds.length) await applyRulesIn(tx, ruleIds);
      const m = new Map<number, Side>();
      for (const id of locationIds) m.set(id, sideOf((await compileLocation(id, tx))?.compiled ?? null));
      throw new Rollback(m);
    });
    throw new AppError(409, "the preview could not be rolled back");
  } catch (err) {
    if (!(err instanceof Rollback)) throw err;
    after = err.value;
  }

  const locations: LocationImpact[] = [];
  for (const [id, b] of before) locations.push(diffLocation(b.loc, b.devices, b.side, after.get(id) ?? null));
  return { rules: [...new Set(ruleIds)].sort((a, b) => a - b), aliases: [...new Set(aliasIds)].sort((a, b) => a - b), locations };
}

