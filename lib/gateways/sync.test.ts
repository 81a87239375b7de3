/**
 * Revisions, acknowledgements, state reports and propagation (docs/gateway-protocol.md,
 * "Revisions" and "Drift"): a real gRPC client speaking GatewaySyncService (as our agent does)
 * and one speaking only GatewayService (as defguard's gateway does), against startGrpcServer and
 * the NOTIFY-fed hub on the test database; the REST routes through their handlers.
 */
import * as grpc from "@grpc/grpc-js";
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { freePort } from "@/lib/db/embedded";
import { secret } from "@/lib/config";
import { startGrpcServer, loadProtos, type GrpcServerHandle } from "@/lib/grpc/server";
import { startHub, stopHub } from "@/lib/gateways/hub";
import { gatewayToken } from "@/lib/gateways/jwt";
import { createLocation } from "@/lib/locations/service";
import { locationSchema } from "@/lib/locations/schema";
import { createUserDevice } from "@/lib/devices/service";
import { generateKeyPair } from "@/lib/wireguard/keys";
import { metrics } from "@/lib/metrics";
import { peersText, firewallText } from "@/lib/net/state-digest";
import { call, createUser, query, signIn, type Handler, type Jar } from "@/tests/helpers";
import { currentRevision, gatewaySyncJob, propagationSummary, syncState } from "./sync";
import * as gatewaysRoute from "@/app/api/v1/network/[id]/gateways/route";
import * as reconcileRoute from "@/app/api/v1/network/[id]/gateways/reconcile/route";
import * as syncRoute from "@/app/api/v1/network/[id]/gateways/sync/route";

const ACTOR = { userId: null, username: "test", ip: null };
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
let server: GrpcServerHandle;
let sync: any;
let legacy: any;
let locationId: number;
let otherLocationId: number;
let admin: Jar;

function md(locId: number, hostname: string) {
  const m = new grpc.Metadata();
  m.set("authorization", gatewayToken(locId, secret("gatewaySecret")));
  m.set("hostname", hostname);
  return m;
}

const unary = (client: any, method: string, req: unknown, m: grpc.Metadata) =>
  new Promise<any>((res, rej) => client[method](req, m, (err: grpc.ServiceError | null, v: any) => (err ? rej(err) : res(v))));

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 8000, what = "condition") {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not met in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Open GatewaySyncService/Updates and collect what arrives. */
async function openSync(locId: number, hostname: string) {
  const got: any[] = [];
  const stream = sync.Updates({}, md(locId, hostname));
  stream.on("data", (u: any) => got.push(u));
  stream.on("error", () => {});
  await new Promise((r) => stream.once("metadata", r));
  return { got, stream };
}

const location = (name: string, address: string) => locationSchema.parse({ name, address, endpoint: "vpn.example.com", port: 51820 });
const list = async (id = locationId) => (await call((gatewaysRoute as { GET: Handler }).GET, { jar: admin, params: { id: String(id) } })).json as any[];

beforeAll(async () => {
  await createUser({ username: "sync-admin", isAdmin: true });
  admin = await signIn("sync-admin");
  await startHub();
  server = await startGrpcServer("127.0.0.1", await freePort());
  const protos = loadProtos();
  sync = new (protos.gatewaysync.GatewaySyncService as any)(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  legacy = new (protos.gateway.GatewayService as any)(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  locationId = (await createLocation(ACTOR, location("Sync HQ", "10.61.0.1/24"))).id;
  otherLocationId = (await createLocation(ACTOR, location("Sync Branch", "10.62.0.1/24"))).id;
});

afterAll(async () => {
  sync?.close();
  legacy?.close();
  await server?.stop();
  await stopHub();
});

describe("revisions and acknowledgements", () => {
  let stream: Awaited<ReturnType<typeof openSync>>;
  let configRevision: number;

  it("Config carries the location's revision; each change bumps it and its updates are followed by a marker", async () => {
    const cfg = await unary(sync, "Config", { name: "ours" }, md(locationId, "gw-ours"));
    configRevision = Number(cfg.revision);
    expect(configRevision).toBe(await currentRevision(locationId));
    expect(Number(cfg.location_id)).toBe(locationId);
    expect(cfg.config.name).toBe("Sync HQ");
    stream = await openSync(locationId, "gw-ours");
    await createUser({ username: "sync-alice" });
    const key = generateKeyPair().publicKey;
    await createUserDevice(ACTOR, "sync-alice", { name: "laptop", wireguard_pubkey: key, description: null });
    const expected = await currentRevision(locationId);
    expect(expected).toBeGreaterThan(configRevision);
    await until(() => stream.got.some((m) => m.item === "revision" && Number(m.revision) === expected), 5000, "marker");
    const peerAt = stream.got.findIndex((m) => m.item === "update" && m.update.peer?.pubkey === key);
    const markAt = stream.got.findIndex((m) => m.item === "revision" && Number(m.revision) === expected);
    expect(peerAt).toBeGreaterThanOrEqual(0);
    expect(peerAt).toBeLessThan(markAt);
  });

  it("a gateway that never acknowledged is unknown; an acknowledgement makes it in_sync; a newer change makes it applying", async () => {
    let [g] = (await list()).filter((x) => x.hostname === "gw-ours");
    expect(g).toMatchObject({ sync_state: "unknown", applied_revision: null, applied_at: null });
    const expected = await currentRevision(locationId);
    expect(g.expected_revision).toBe(expected);
    await expect(unary(sync, "Applied", { location_id: locationId, revision: configRevision, source: "CONFIG" }, md(locationId, "gw-ours"))).resolves.toEqual({ accepted: true });
    [g] = (await list()).filter((x) => x.hostname === "gw-ours");
    expect(g).toMatchObject({ sync_state: "applying", applied_revision: configRevision, expected_revision: expected });
    await expect(unary(sync, "Applied", { location_id: locationId, revision: expected, source: "UPDATES" }, md(locationId, "gw-ours"))).resolves.toEqual({ accepted: true });
    [g] = (await list()).filter((x) => x.hostname === "gw-ours");
    expect(g).toMatchObject({ sync_state: "in_sync", applied_revision: expected, expected_revision: expected });
    expect(typeof g.applied_at).toBe("string");
  });

  it("records commit-to-acknowledgement per change: histogram in /metrics and the hour's p50/p95", async () => {
    const count = async () =>
      ((await metrics().registry.getSingleMetric("defguard_gateway_ack_propagation_seconds")!.get()).values as { metricName?: string; value: number }[]).find((v) => v.metricName?.endsWith("_count"))?.value ?? 0;
    const before = await count();
    await createUser({ username: "sync-bob" });
    await createUserDevice(ACTOR, "sync-bob", { name: "phone", wireguard_pubkey: generateKeyPair().publicKey, description: null });
    const expected = await currentRevision(locationId);
    await until(() => stream.got.some((m) => m.item === "revision" && Number(m.revision) === expected), 5000, "marker");
    await unary(sync, "Applied", { location_id: locationId, revision: expected, source: "UPDATES" }, md(locationId, "gw-ours"));
    const after = await count();
    expect(after).toBeGreaterThan(before);
    const text = await metrics().registry.metrics();
    expect(text).toMatch(/defguard_gateway_ack_propagation_seconds_bucket/);
    const summary = await propagationSummary(locationId);
    expect(summary.samples).toBeGreaterThanOrEqual(1);
    expect(summary.p50_ms).not.toBeNull();
    expect(summary.p95_ms!).toBeGreaterThanOrEqual(summary.p50_ms!);
    expect(summary.alert).toBe(summary.p95_ms! > summary.threshold_ms);
  });

  it("the alert line follows the configurable threshold; bad settings answer 400 naming the field and change nothing", async () => {
    const put = (body: unknown) => call((syncRoute as { PUT: Handler }).PUT, { method: "PUT", jar: admin, params: { id: String(locationId) }, body });
    await query("insert into gateway_propagation (location_id, hostname, revision, seconds) values ($1, 'gw-ours', 0, 5)", [locationId]);
    let r = await put({ auto_repair: true, propagation_alert_ms: 1 });
    expect(r.status).toBe(200);
    let overview = (await call((syncRoute as { GET: Handler }).GET, { jar: admin, params: { id: String(locationId) } })).json;
    expect(overview.propagation.alert).toBe(true);
    r = await put({ auto_repair: true, propagation_alert_ms: 3_600_000 });
    overview = (await call((syncRoute as { GET: Handler }).GET, { jar: admin, params: { id: String(locationId) } })).json;
    expect(overview.propagation.alert).toBe(false);
    r = await put({ auto_repair: "yes", propagation_alert_ms: 5 });
    expect(r.status).toBe(400);
    expect(r.json.field).toBe("auto_repair");
    r = await put({ auto_repair: false, propagation_alert_ms: -1 });
    expect(r.status).toBe(400);
    expect(r.json.field).toBe("propagation_alert_ms");
    expect(r.json.msg).toMatch(/below the minimum/);
    overview = (await call((syncRoute as { GET: Handler }).GET, { jar: admin, params: { id: String(locationId) } })).json;
    expect(overview).toMatchObject({ auto_repair: true, propagation_alert_ms: 3_600_000 });
  });

  it("ignores, with a log line, acknowledgements of unknown revisions and of other locations", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const expected = await currentRevision(locationId);
      const [before] = (await list()).filter((x) => x.hostname === "gw-ours");
      await expect(unary(sync, "Applied", { location_id: locationId, revision: expected + 5, source: "UPDATES" }, md(locationId, "gw-ours"))).resolves.toEqual({ accepted: false });
      await expect(unary(sync, "Applied", { location_id: otherLocationId, revision: 0, source: "UPDATES" }, md(locationId, "gw-ours"))).resolves.toEqual({ accepted: false });
      const [after] = (await list()).filter((x) => x.hostname === "gw-ours");
      expect(after.applied_revision).toBe(before.applied_revision);
      expect(after.applied_at).toBe(before.applied_at);
      const lines = warn.mock.calls.map((c) => String(c[0]));
      expect(lines.some((l) => /unknown revision/.test(l))).toBe(true);
      expect(lines.some((l) => new RegExp(`naming location ${otherLocationId}`).test(l))).toBe(true);
    } finally {
      warn.mockRestore();
    }
  });

  it("a defguard gateway (GatewayService only) stays unknown and keeps getting plain updates", async () => {
    await unary(legacy, "Config", { name: "theirs" }, md(locationId, "gw-defguard"));
    const got: any[] = [];
    const s = legacy.Updates({}, md(locationId, "gw-defguard"));
    s.on("data", (u: any) => got.push(u));
    s.on("error", () => {});
    await new Promise((r) => s.once("metadata", r));
    await createUser({ username: "sync-carol" });
    const key = generateKeyPair().publicKey;
    await createUserDevice(ACTOR, "sync-carol", { name: "tablet", wireguard_pubkey: key, description: null });
    await until(() => got.some((u) => u.peer?.pubkey === key), 5000, "plain update");
    expect(got.every((u) => "update_type" in u)).toBe(true);
    const [g] = (await list()).filter((x) => x.hostname === "gw-defguard");
    expect(g).toMatchObject({ sync_state: "unknown", applied_revision: null });
    s.cancel();
  });
});

describe("state reports and drift", () => {
  let stream: Awaited<ReturnType<typeof openSync>>;
  const report = (msg: object) => unary(sync, "Report", { location_id: locationId, ...msg }, md(locationId, "gw-ours"));

  async function expected() {
    const cfg = await unary(sync, "Config", {}, md(locationId, "gw-ours"));
    const peers = cfg.config.peers.map((p: any) => ({ pubkey: p.pubkey, allowed_ips: p.allowed_ips }));
    return { revision: Number(cfg.revision), peers };
  }

  it("a report matching the expected state is in sync; one for an older revision is not compared", async () => {
    stream = await openSync(locationId, "gw-ours");
    const want = await expected();
    await unary(sync, "Applied", { location_id: locationId, revision: want.revision, source: "UPDATES" }, md(locationId, "gw-ours"));
    const digest = sha256(peersText(want.peers));
    await expect(report({ revision: want.revision, peers_digest: digest, firewall_digest: sha256(firewallText(null)) })).resolves.toMatchObject({ in_sync: true, compared: true });
    await expect(report({ revision: want.revision - 1, peers_digest: "x", firewall_digest: "" })).resolves.toMatchObject({ in_sync: false, want_detail: false, compared: false });
    const [g] = (await list()).filter((x) => x.hostname === "gw-ours");
    expect(g.sync_state).toBe("in_sync");
  });

  it("a differing report asks for the detail, records the difference and repairs: the full configuration is resent", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const want = await expected();
      const live = want.peers.slice(1);
      const removed = want.peers[0].pubkey;
      const digest = sha256(peersText(live));
      await expect(report({ revision: want.revision, peers_digest: digest, firewall_digest: "" })).resolves.toMatchObject({ in_sync: false, want_detail: true });
      const seen = stream.got.length;
      await expect(report({ revision: want.revision, peers_digest: digest, firewall_digest: "", peers: live, detail: true })).resolves.toMatchObject({ in_sync: false, want_detail: false, compared: true });
      const [g] = (await list()).filter((x) => x.hostname === "gw-ours");
      // The repair already bumped the revision: the gateway is now applying it.
      expect(g.sync_state).toBe("applying");
      const rows = await query<{ drift: any; drift_since: Date | null }>("select s.drift, s.drift_since from gateway_sync s join gateways g on g.id = s.gateway_id where g.hostname = 'gw-ours'");
      expect(rows[0].drift_since).not.toBeNull();
      expect(rows[0].drift).toMatchObject({ missing: [removed], missing_count: 1, unexpected: [], firewall: false });
      const repaired = await currentRevision(locationId);
      expect(repaired).toBe(want.revision + 1);
      await until(() => stream.got.slice(seen).some((m) => m.item === "revision" && Number(m.revision) === repaired), 5000, "repair marker");
      const network = stream.got.slice(seen).find((m) => m.item === "update" && m.update.network);
      expect(network.update.network.peers.map((p: any) => p.pubkey)).toContain(removed);
      const activity = await query("select 1 from activity_log where event = 'gateway_reconciled' and description like 'Drift repair%gw-ours'");
      expect(activity.length).toBe(1);
    } finally {
      warn.mockRestore();
    }
  });

  it("while the drift lasts at the current revision it shows as drifted; a matching report clears it", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const want = await expected();
      await unary(sync, "Applied", { location_id: locationId, revision: want.revision, source: "UPDATES" }, md(locationId, "gw-ours"));
      await report({ revision: want.revision, peers_digest: "bad", firewall_digest: "", peers: [], detail: true });
      let [g] = (await list()).filter((x) => x.hostname === "gw-ours");
      // A repair was requested less than 30 s ago: not requested again, so the gateway stays at this revision, drifted.
      expect(g.sync_state).toBe("drifted");
      expect(g.drift.missing_count).toBe(want.peers.length);
      expect(typeof g.drifted_since).toBe("string");
      await report({ revision: want.revision, peers_digest: sha256(peersText(want.peers)), firewall_digest: "" });
      [g] = (await list()).filter((x) => x.hostname === "gw-ours");
      expect(g).toMatchObject({ sync_state: "in_sync", drifted_since: null, drift: null });
    } finally {
      warn.mockRestore();
    }
  });

  it("the job repairs drift again once the last repair is a minute old, unless the location turned it off", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const want = await expected();
      await report({ revision: want.revision, peers_digest: "bad", firewall_digest: "", peers: [], detail: true });
      await query("update gateway_sync set repair_requested_at = now() - interval '5 minutes'");
      await call((syncRoute as { PUT: Handler }).PUT, { method: "PUT", jar: admin, params: { id: String(locationId) }, body: { auto_repair: false, propagation_alert_ms: 1000 } });
      const off = await currentRevision(locationId);
      await gatewaySyncJob();
      expect(await currentRevision(locationId)).toBe(off);
      await call((syncRoute as { PUT: Handler }).PUT, { method: "PUT", jar: admin, params: { id: String(locationId) }, body: { auto_repair: true, propagation_alert_ms: 1000 } });
      await gatewaySyncJob();
      expect(await currentRevision(locationId)).toBe(off + 1);
    } finally {
      warn.mockRestore();
    }
  });

  it("Reconcile now (admin only) resends the full configuration to every gateway of the location", async () => {
    const seen = stream.got.length;
    const anonymous = await call((reconcileRoute as { POST: Handler }).POST, { method: "POST", params: { id: String(locationId) } });
    expect(anonymous.status).toBe(401);
    const r = await call((reconcileRoute as { POST: Handler }).POST, { method: "POST", jar: admin, params: { id: String(locationId) } });
    expect(r.status).toBe(200);
    expect(r.json.expected_revision).toBe(await currentRevision(locationId));
    await until(() => stream.got.slice(seen).some((m) => m.item === "update" && m.update.network), 5000, "full configuration");
    await until(() => stream.got.slice(seen).some((m) => m.item === "revision" && Number(m.revision) === r.json.expected_revision), 5000, "marker");
    const missing = await call((reconcileRoute as { POST: Handler }).POST, { method: "POST", jar: admin, params: { id: "999999" } });
    expect(missing.status).toBe(404);
  });

  it("sync states", () => {
    expect(syncState(5, null, null)).toBe("unknown");
    expect(syncState(5, 4, null)).toBe("applying");
    expect(syncState(5, 5, null)).toBe("in_sync");
    expect(syncState(5, 5, new Date())).toBe("drifted");
  });
});
