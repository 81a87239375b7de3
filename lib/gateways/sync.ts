import "server-only";
import * as loader from "@grpc/proto-loader";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { and, eq, sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { gateways, gatewaySync, locationSync } from "../db/schema";
import { transaction } from "../events";
import { metrics } from "../metrics";
import { recordActivity, SYSTEM_ACTOR, type Actor } from "../activity/service";
import { requireLocation } from "../locations/service";
import { locationFirewall } from "../acl/firewall";
import { createHash } from "node:crypto";
import { firewallText, peersText, stateDifference, type PeerAllowedIps, type StateDifference } from "../net/state-digest";
import { desiredPeers, locationGateways } from "./service";
import type { SyncSettingsInput } from "./schema";

/*
 * Revisions, acknowledgements, drift and propagation (docs/gateway-protocol.md, "Revisions" and
 * "Drift"). The revision itself is bumped by lib/events/revisions.ts in every transaction that
 * produces a gateway update; the revisioned update stream is served by lib/grpc/server.ts.
 */

export type SyncState = "in_sync" | "applying" | "drifted" | "unknown";

/** The revision a location's gateways must enforce (0 before its first change). */
export async function currentRevision(locationId: number, tx: Tx = getDb()): Promise<number> {
  const [r] = await tx.select({ revision: locationSync.revision }).from(locationSync).where(eq(locationSync.locationId, locationId));
  return r ? Number(r.revision) : 0;
}

export interface SyncSettings {
  auto_repair: boolean;
  propagation_alert_ms: number;
}

export async function syncSettings(locationId: number, tx: Tx = getDb()): Promise<SyncSettings> {
  const [r] = await tx.select().from(locationSync).where(eq(locationSync.locationId, locationId));
  return { auto_repair: r?.autoRepair ?? true, propagation_alert_ms: r?.propagationAlertMs ?? 1000 };
}

async function gatewayId(locationId: number, hostname: string): Promise<number | null> {
  const [g] = await getDb()
    .select({ id: gateways.id })
    .from(gateways)
    .where(and(eq(gateways.locationId, locationId), eq(gateways.hostname, hostname)));
  return g?.id ?? null;
}

export interface Caller {
  locationId: number;
  hostname: string;
}

export interface AppliedMessage {
  location_id: number;
  revision: number;
  source?: "UPDATES" | "CONFIG" | string;
}

/**
 * A gateway confirmed it applied everything up to a revision. Ignored (with a log line) when it
 * names another location than its token's, or a revision the location never had. A revision
 * confirmed after updates (not after a full configuration, which follows a reconnect) gives one
 * commit-to-acknowledgement sample per revision it covers.
 */
export async function acknowledge(who: Caller, msg: AppliedMessage): Promise<{ accepted: boolean }> {
  const revision = Number(msg.revision);
  if (Number(msg.location_id) !== who.locationId) {
    console.warn(`[gateways] ignored acknowledgement from ${who.hostname} (location ${who.locationId}) naming location ${msg.location_id}`);
    return { accepted: false };
  }
  const expected = await currentRevision(who.locationId);
  if (!Number.isSafeInteger(revision) || revision < 0 || revision > expected) {
    console.warn(`[gateways] ignored acknowledgement of unknown revision ${msg.revision} from ${who.hostname} (location ${who.locationId} is at revision ${expected})`);
    return { accepted: false };
  }
  const id = await gatewayId(who.locationId, who.hostname);
  if (id === null) {
    console.warn(`[gateways] ignored acknowledgement from unknown gateway ${who.hostname} of location ${who.locationId}`);
    return { accepted: false };
  }
  const fromUpdates = msg.source !== "CONFIG";
  const samples = await transaction(async (tx) => {
    const [before] = await tx.select({ rev: gatewaySync.appliedRevision }).from(gatewaySync).where(eq(gatewaySync.gatewayId, id)).for("update");
    const prev = before?.rev === null || before?.rev === undefined ? null : Number(before.rev);
    if (prev !== null && revision <= prev) return [];
    await tx
      .insert(gatewaySync)
      .values({ gatewayId: id, appliedRevision: revision, appliedAt: new Date() })
      .onConflictDoUpdate({ target: gatewaySync.gatewayId, set: { appliedRevision: revision, appliedAt: new Date() } });
    if (!fromUpdates || prev === null) return [];
    const r = await tx.execute<{ revision: string; seconds: number }>(sql`
      insert into gateway_propagation (location_id, hostname, revision, seconds)
      select location_id, ${who.hostname}, revision, greatest(0, extract(epoch from clock_timestamp() - committed_at))
      from location_revision_log where location_id = ${who.locationId} and revision > ${prev} and revision <= ${revision}
      returning revision, seconds`);
    return r.rows.map((x) => Number(x.seconds));
  });
  for (const s of samples) metrics().ackPropagation.observe(s);
  return { accepted: true };
}

export interface StateReportMessage {
  location_id: number;
  revision: number;
  peers_digest: string;
  firewall_digest: string;
  peers?: PeerAllowedIps[];
  detail?: boolean;
}

export interface ReportAnswer {
  in_sync: boolean;
  want_detail: boolean;
  compared: boolean;
}

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

type CanonicalFirewall = (fw: unknown) => unknown;
let canonical: CanonicalFirewall | null = null;

/**
 * The firewall config after a protobuf round trip with the protocol's loader options: what a
 * gateway receives, so absent and default fields digest the same on both sides.
 */
export function canonicalFirewall(fw: unknown): unknown {
  if (!canonical) {
    const dir = join(process.cwd(), "proto");
    if (!existsSync(join(dir, "gateway.proto"))) throw new Error(`proto files not found in ${dir}`);
    const def = loader.loadSync(["gateway.proto"], { includeDirs: [dir], keepCase: true, longs: Number, enums: String, defaults: true, oneofs: true });
    const m = (def["gateway.GatewayService"] as loader.ServiceDefinition).Updates;
    canonical = (x) => (m.responseDeserialize(m.responseSerialize({ update_type: "MODIFY", firewall_config: x })) as { firewall_config: unknown }).firewall_config;
  }
  return canonical(fw);
}

/** The expected state's digests (and peers) of a location. */
export async function expectedState(locationId: number) {
  const db = getDb();
  const peers = await desiredPeers(locationId, db);
  const fw = await locationFirewall(locationId, db);
  const list = peers.map((p) => ({ pubkey: p.pubkey, allowed_ips: p.allowed_ips }));
  return { peers: list, peersDigest: sha256(peersText(list)), firewallDigest: sha256(firewallText(fw ? canonicalFirewall(fw) : null)) };
}

/**
 * A gateway's state report. It is compared only when it describes the location's current revision
 * (a gateway still applying a newer one is "applying", not drifted). Equal digests clear the
 * drift; different ones ask for the detail (the peer list), then record the difference and, unless
 * the location turned it off, ask for a repair (the full configuration resent to that gateway; at
 * most once per 30 s within one drift episode, and again by the gateway-sync job while it lasts).
 */
export async function reportState(who: Caller, msg: StateReportMessage): Promise<ReportAnswer> {
  const no = { in_sync: false, want_detail: false, compared: false };
  if (Number(msg.location_id) !== who.locationId) {
    console.warn(`[gateways] ignored state report from ${who.hostname} (location ${who.locationId}) naming location ${msg.location_id}`);
    return no;
  }
  const id = await gatewayId(who.locationId, who.hostname);
  if (id === null) {
    console.warn(`[gateways] ignored state report from unknown gateway ${who.hostname} of location ${who.locationId}`);
    return no;
  }
  const before = await currentRevision(who.locationId);
  const want = await expectedState(who.locationId);
  const after = await currentRevision(who.locationId);
  const now = new Date();
  const upsert = (set: Partial<typeof gatewaySync.$inferInsert>) =>
    getDb()
      .insert(gatewaySync)
      .values({ gatewayId: id, ...set })
      .onConflictDoUpdate({ target: gatewaySync.gatewayId, set });
  if (before !== after || Number(msg.revision) !== after) {
    await upsert({ reportedAt: now });
    return no;
  }
  const peersOk = msg.peers_digest === want.peersDigest;
  const firewallOk = msg.firewall_digest === "" || msg.firewall_digest === want.firewallDigest;
  if (peersOk && firewallOk) {
    // A later drift is a new episode: its first repair is not held back by this one's.
    await upsert({ reportedAt: now, driftSince: null, drift: null, repairRequestedAt: null });
    return { in_sync: true, want_detail: false, compared: true };
  }
  if (!msg.detail) return { in_sync: false, want_detail: true, compared: true };
  const difference: StateDifference = stateDifference(want.peers, msg.peers ?? [], !firewallOk);
  const [row] = await getDb().select().from(gatewaySync).where(eq(gatewaySync.gatewayId, id));
  await upsert({ reportedAt: now, driftSince: row?.driftSince ?? now, drift: difference });
  if (!row?.driftSince) console.warn(`[gateways] gateway ${who.hostname} of location ${who.locationId} drifted from revision ${after}: ${JSON.stringify(difference)}`);
  const settings = await syncSettings(who.locationId);
  if (settings.auto_repair && (!row?.repairRequestedAt || now.getTime() - row.repairRequestedAt.getTime() >= 30_000)) {
    await requestRepair(SYSTEM_ACTOR, who.locationId, who.hostname, "automatic");
  }
  return { in_sync: false, want_detail: false, compared: true };
}

/** Resend the full configuration to one gateway (or all of the location's), recorded in the activity log. */
async function requestRepair(actor: Actor, locationId: number, hostname: string | null, why: "automatic" | "manual") {
  await transaction(async (tx, emit) => {
    const loc = await requireLocation(tx, locationId);
    const ids = await tx
      .select({ id: gateways.id })
      .from(gateways)
      .where(hostname === null ? eq(gateways.locationId, locationId) : and(eq(gateways.locationId, locationId), eq(gateways.hostname, hostname)));
    for (const g of ids) {
      await tx
        .insert(gatewaySync)
        .values({ gatewayId: g.id, repairRequestedAt: new Date() })
        .onConflictDoUpdate({ target: gatewaySync.gatewayId, set: { repairRequestedAt: new Date() } });
    }
    await recordActivity(tx, actor, {
      event: "gateway_reconciled",
      module: "vpn",
      location: loc.name,
      description:
        why === "automatic"
          ? `Drift repair: resent the full configuration of ${loc.name} to gateway ${hostname}`
          : `Resent the full configuration of ${loc.name} to ${hostname === null ? "its gateways" : `gateway ${hostname}`}`,
    });
    emit({ type: "gateway.reconcile", locationId, hostname });
  });
}

/** POST /network/{id}/gateways/reconcile ("Reconcile now"): the full configuration to every gateway of the location. */
export async function reconcileNow(actor: Actor, locationId: number) {
  await requestRepair(actor, locationId, null, "manual");
  return { expected_revision: await currentRevision(locationId) };
}

/** PUT /network/{id}/gateways/sync: the location's drift repair and propagation alert settings. */
export async function updateSyncSettings(actor: Actor, locationId: number, input: SyncSettingsInput): Promise<SyncSettings> {
  return transaction(async (tx) => {
    const loc = await requireLocation(tx, locationId);
    await tx
      .insert(locationSync)
      .values({ locationId, autoRepair: input.auto_repair, propagationAlertMs: input.propagation_alert_ms })
      .onConflictDoUpdate({ target: locationSync.locationId, set: { autoRepair: input.auto_repair, propagationAlertMs: input.propagation_alert_ms } });
    await recordActivity(tx, actor, {
      event: "gateway_sync_settings_modified",
      module: "vpn",
      location: loc.name,
      description: `Gateway sync of ${loc.name}: automatic drift repair ${input.auto_repair ? "on" : "off"}, propagation alert above ${input.propagation_alert_ms} ms`,
    });
    return syncSettings(locationId, tx);
  });
}

export interface GatewaySyncFields {
  expected_revision: number;
  applied_revision: number | null;
  applied_at: string | null;
  sync_state: SyncState;
  drifted_since: string | null;
  drift: StateDifference | null;
  reported_at: string | null;
}

/**
 * in_sync: confirmed the expected revision and its last report matched; applying: confirmed an
 * older one; drifted: its last report at the expected revision differed; unknown: never
 * confirmed any (defguard's gateways, which do not acknowledge).
 */
export function syncState(expected: number, applied: number | null, driftSince: Date | null): SyncState {
  if (applied === null) return "unknown";
  if (applied < expected) return "applying";
  return driftSince ? "drifted" : "in_sync";
}

/** The sync fields of every gateway of a location (by gateway id). */
export async function gatewaySyncFields(locationId: number): Promise<{ expected: number; byGateway: Map<number, GatewaySyncFields> }> {
  const expected = await currentRevision(locationId);
  const rows = await getDb()
    .select({ id: gateways.id, s: gatewaySync })
    .from(gateways)
    .leftJoin(gatewaySync, eq(gatewaySync.gatewayId, gateways.id))
    .where(eq(gateways.locationId, locationId));
  const byGateway = new Map<number, GatewaySyncFields>();
  for (const r of rows) {
    const applied = r.s?.appliedRevision === null || r.s?.appliedRevision === undefined ? null : Number(r.s.appliedRevision);
    const driftSince = applied !== null && applied >= expected ? (r.s?.driftSince ?? null) : null;
    byGateway.set(r.id, {
      expected_revision: expected,
      applied_revision: applied,
      applied_at: r.s?.appliedAt?.toISOString() ?? null,
      sync_state: syncState(expected, applied, driftSince),
      drifted_since: driftSince?.toISOString() ?? null,
      drift: driftSince ? ((r.s?.drift as StateDifference | null) ?? null) : null,
      reported_at: r.s?.reportedAt?.toISOString() ?? null,
    });
  }
  return { expected, byGateway };
}

export interface PropagationSummary {
  samples: number;
  p50_ms: number | null;
  p95_ms: number | null;
  threshold_ms: number;
  alert: boolean;
}

/** p50/p95 commit-to-acknowledgement time of the last hour, and whether p95 is above the location's threshold. */
export async function propagationSummary(locationId: number): Promise<PropagationSummary> {
  const r = await getDb().execute<{ n: string; p50: number | null; p95: number | null }>(sql`
    select count(*) n,
      percentile_cont(0.5) within group (order by seconds) p50,
      percentile_cont(0.95) within group (order by seconds) p95
    from gateway_propagation where location_id = ${locationId} and at > now() - interval '1 hour'`);
  const row = r.rows[0];
  const { propagation_alert_ms } = await syncSettings(locationId);
  const ms = (v: number | null) => (v === null || v === undefined ? null : Math.round(Number(v) * 10000) / 10);
  const p95 = ms(row?.p95 ?? null);
  return { samples: Number(row?.n ?? 0), p50_ms: ms(row?.p50 ?? null), p95_ms: p95, threshold_ms: propagation_alert_ms, alert: p95 !== null && p95 > propagation_alert_ms };
}

/** GET /network/{id}/gateways/sync: settings, expected revision and propagation of the last hour. */
export async function locationSyncOverview(locationId: number) {
  await requireLocation(getDb(), locationId);
  const [settings, expected, propagation] = await Promise.all([syncSettings(locationId), currentRevision(locationId), propagationSummary(locationId)]);
  return { ...settings, expected_revision: expected, propagation };
}

/**
 * The gateway-sync job: repairs again drift that outlived a repair (a gateway whose report still
 * differs a minute after the last one, where the location repairs automatically), and forgets
 * revision commit times and propagation samples older than a day.
 */
export async function gatewaySyncJob(): Promise<void> {
  const db = getDb();
  const stale = await db.execute<{ location_id: number; hostname: string }>(sql`
    select g.location_id, g.hostname from gateway_sync s
    join gateways g on g.id = s.gateway_id
    left join location_sync l on l.location_id = g.location_id
    where s.drift_since is not null and g.connected and coalesce(l.auto_repair, true)
      and (s.repair_requested_at is null or s.repair_requested_at < now() - interval '60 seconds')`);
  for (const g of stale.rows) await requestRepair(SYSTEM_ACTOR, Number(g.location_id), g.hostname, "automatic");
  await db.execute(sql`delete from location_revision_log where committed_at < now() - interval '1 day'`);
  await db.execute(sql`delete from gateway_propagation where at < now() - interval '1 day'`);
}

/** GET /network/{id}/gateways: GatewayState plus expected_revision, applied_revision, applied_at, sync_state (and the drift). */
export async function locationGatewaysWithSync(locationId: number) {
  const list = await locationGateways(locationId);
  const { expected, byGateway } = await gatewaySyncFields(locationId);
  return list.map((g) => ({ ...g, ...(byGateway.get(g.id) ?? { expected_revision: expected, applied_revision: null, applied_at: null, sync_state: "unknown" as const, drifted_since: null, drift: null, reported_at: null }) }));
}
