/**
 * The agent's connection loop and interface manager against the console's real gRPC service
 * (startGrpcServer + the NOTIFY-fed hub on the per-file test database), with an in-memory
 * WireGuard device instead of wg/ip (no root needed). The namespace test (e2e/net) runs the
 * same code against wireguard-go.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@/lib/db/embedded";
import { secret } from "@/lib/config";
import { startGrpcServer, type GrpcServerHandle } from "@/lib/grpc/server";
import { startHub, stopHub } from "@/lib/gateways/hub";
import { gatewayToken } from "@/lib/gateways/jwt";
import { createLocation, updateLocation } from "@/lib/locations/service";
import { locationSchema } from "@/lib/locations/schema";
import { createUserDevice, deleteDevice } from "@/lib/devices/service";
import { updateUser } from "@/lib/users/service";
import { generateKeyPair } from "@/lib/wireguard/keys";
import { createUser, query } from "@/tests/helpers";
import { makeTestPki } from "@/tests/tls";
import { readFileSync } from "node:fs";
import { rotateToken } from "@/lib/gateways/service";
import { currentRevision, locationGatewaysWithSync } from "@/lib/gateways/sync";
import * as grpc from "@grpc/grpc-js";
import { GatewayClient } from "./client";
import { loadGatewayService } from "./proto";
import type { GatewayConfig } from "./config";
import { InterfaceManager } from "./manager";
import { applyOps, emptyState, type InterfaceState, type Op } from "./reconcile";
import type { Dump, Log, WgDevice } from "./wg";

const ACTOR = { userId: null, username: "test", ip: null };
const opLabel = (o: Op) => (o.op === "remove-peer" ? `-${o.pubkey}` : o.op === "upsert-peer" ? `+${o.peer.pubkey}` : o.op);

/** An interface in memory: the same state model the real one is checked against. */
class FakeDevice implements WgDevice {
  readonly ifname = "wg-fake";
  readonly pid = null;
  onUnexpectedExit: ((why: string) => void) | null = null;
  state: InterfaceState | null = null;
  creations = 0;
  /** Every peer op executed, in order. */
  peerOps: Op[] = [];
  /** Counters the "kernel" reports per peer. */
  traffic = new Map<string, { rx: number; tx: number; hs: number }>();
  async exists() {
    return this.state !== null;
  }
  async create() {
    this.creations++;
    this.state = emptyState();
  }
  async destroy() {
    this.state = null;
  }
  release() {}
  async setUp() {}
  async readState() {
    if (!this.state) throw new Error("no such device");
    return applyOps(this.state, []);
  }
  async execute(ops: Op[]) {
    if (!this.state) throw new Error("no such device");
    this.state = applyOps(this.state, ops);
    this.peerOps.push(...ops.filter((o) => o.op === "upsert-peer" || o.op === "remove-peer"));
  }
  async dump(): Promise<Dump> {
    const s = await this.readState();
    return {
      privateKey: s.privateKey,
      publicKey: null,
      listenPort: s.listenPort ?? 0,
      fwmark: null,
      peers: [...s.peers.values()].map((p) => {
        const t = this.traffic.get(p.pubkey) ?? { rx: 0, tx: 0, hs: 0 };
        return { pubkey: p.pubkey, presharedKey: p.presharedKey, endpoint: t.hs ? "198.51.100.7:40000" : null, allowedIps: p.allowedIps, latestHandshake: t.hs, rx: t.rx, tx: t.tx, keepalive: p.keepalive };
      }),
    };
  }
  dispose() {}
  peerKeys() {
    return [...(this.state?.peers.keys() ?? [])].sort();
  }
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 8000, what = "condition") {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not met in ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const location = (name: string, address: string) => locationSchema.parse({ name, address, endpoint: "198.51.100.1", port: 51820, allowed_ips: "203.0.113.0/24" });
const person = (username: string, is_active: boolean) => ({ username, first_name: "Test", last_name: username, email: `${username}@example.com`, phone: null, is_active });

let server: GrpcServerHandle;
let port: number;
let locationId: number;
let device: FakeDevice;
let manager: InterfaceManager;
let client: GatewayClient;
let running: Promise<void>;
const logs: string[] = [];

beforeAll(async () => {
  await createUser({ username: "gw-admin", isAdmin: true });
  await startHub();
  port = await freePort();
  server = await startGrpcServer("127.0.0.1", port);
  locationId = (await createLocation(ACTOR, location("Edge", "203.0.113.1/24"))).id;
  const cfg: GatewayConfig = {
    token: gatewayToken(locationId, secret("gatewaySecret")),
    grpcTarget: `127.0.0.1:${port}`,
    tls: false,
    ca: null,
    grpcUrl: `http://127.0.0.1:${port}`,
    ifname: "wg-fake",
    userspace: true,
    wireguardGo: "wireguard-go",
    statsPeriod: 1,
    statsKeepalive: 10,
      reportPeriod: 60,
    preUp: null,
    postUp: null,
    preDown: null,
    postDown: null,
    healthPort: null,
    name: "fake-edge",
    hostname: "gw-unit",
    firewall: false,
    teardownOnExit: false,
    backoffMinMs: 100,
    backoffMaxMs: 500,
  };
  const log: Log = (level, msg) => logs.push(`${level} ${msg}`);
  device = new FakeDevice();
  manager = new InterfaceManager(cfg, device, log);
  client = new GatewayClient(cfg, manager, log);
});

afterAll(async () => {
  client?.stop();
  await running;
  await server?.stop();
  await stopHub();
});

describe("gateway agent against the console's gRPC service", () => {
  let userA: { id: number };
  let keyA: string;
  let keyB: string;
  let deviceA: number;

  it("connects, applies the full configuration and reports the gateway connected", async () => {
    userA = await createUser({ username: "alice" });
    keyA = generateKeyPair().publicKey;
    deviceA = (await createUserDevice(ACTOR, "alice", { name: "laptop", wireguard_pubkey: keyA, description: null })).device.id;
    running = client.run();
    await until(() => client.connected, 8000, "connected");
    expect(device.creations).toBe(1);
    expect(device.peerKeys()).toEqual([keyA]);
    expect(device.state!.addresses).toEqual(["203.0.113.1/24"]);
    expect(device.state!.listenPort).toBe(51820);
    await until(async () => (await query("select 1 from gateways where hostname = 'gw-unit' and connected and name = 'fake-edge'")).length === 1);
  });

  it("applies peer CREATE/DELETE as single ops, touching no other peer", async () => {
    await createUser({ username: "bob" });
    keyB = generateKeyPair().publicKey;
    device.peerOps = [];
    await createUserDevice(ACTOR, "bob", { name: "phone", wireguard_pubkey: keyB, description: null });
    await until(() => device.peerKeys().includes(keyB), 5000, "B added");
    await deleteDevice(ACTOR, deviceA, { userId: userA.id, isAdmin: false });
    await until(() => !device.peerKeys().includes(keyA), 5000, "A removed");
    expect(device.peerOps.map(opLabel)).toEqual([`+${keyB}`, `-${keyA}`]);
  });

  it("disabling a user removes its peer; a network MODIFY changes only what changed", async () => {
    await updateUser(ACTOR, true, "bob", person("bob", false));
    await until(() => !device.peerKeys().includes(keyB), 5000, "B removed");
    await updateUser(ACTOR, true, "bob", person("bob", true));
    await until(() => device.peerKeys().includes(keyB), 5000, "B back");
    device.peerOps = [];
    await updateLocation(ACTOR, locationId, { ...location("Edge", "203.0.113.1/24"), port: 51821 });
    await until(() => device.state!.listenPort === 51821, 5000, "port changed");
    expect(device.peerOps).toEqual([]);
    expect(device.creations).toBe(1);
  });

  it("sends stats for peers with a handshake; the console stores them", async () => {
    device.traffic.set(keyB, { rx: 1000, tx: 5000, hs: Math.floor(Date.now() / 1000) });
    await until(async () => (await query("select 1 from device_stats s join devices d on d.id = s.device_id where d.wireguard_pubkey = $1", [keyB])).length > 0, 6000, "stats row");
    const [row] = await query<{ upload: number; download: number }>(
      "select upload::int, download::int from device_stats s join devices d on d.id = s.device_id where d.wireguard_pubkey = $1",
      [keyB],
    );
    // upload = what the interface sent (tx), download = what it received (rx).
    expect(row).toEqual({ upload: 5000, download: 1000 });
  });

  it("acknowledges every revision it applied; a peer removed behind its back is reported as drift and put back", async () => {
    const state = async () => (await locationGatewaysWithSync(locationId)).find((g) => g.hostname === "gw-unit")!;
    await until(async () => client.appliedRevision === (await currentRevision(locationId)), 5000, "acknowledged");
    await until(async () => (await state()).sync_state === "in_sync", 5000, "in_sync");
    expect(await client.reportNow()).toMatchObject({ in_sync: true, compared: true });
    // Behind the agent's back (as `wg set <if> peer <key> remove` would).
    device.state = applyOps(device.state!, [{ op: "remove-peer", pubkey: keyB }]);
    const before = await currentRevision(locationId);
    expect(await client.reportNow()).toMatchObject({ in_sync: false, compared: true });
    expect(client.syncCounters.driftReported).toBe(1);
    // Repaired: the full configuration came back with a new revision, was applied and acknowledged.
    await until(() => device.peerKeys().includes(keyB), 5000, "peer put back");
    await until(async () => client.appliedRevision === before + 1, 5000, "repair acknowledged");
    expect(await client.reportNow()).toMatchObject({ in_sync: true, compared: true });
    expect((await state()).sync_state).toBe("in_sync");
  });

  it("reconnects after the console goes away and converges without touching unchanged peers", async () => {
    const connectionsBefore = client.connections;
    await server.stop();
    await until(() => !client.connected, 8000, "disconnected");
    // While disconnected: the interface drifts (an extra peer appears) and the console changes.
    const stray = generateKeyPair().publicKey;
    await device.execute([{ op: "upsert-peer", existed: false, peer: { pubkey: stray, allowedIps: ["203.0.113.200/32"], presharedKey: null, keepalive: 0 } }]);
    await createUser({ username: "carol" });
    const keyC = generateKeyPair().publicKey;
    await createUserDevice(ACTOR, "carol", { name: "tablet", wireguard_pubkey: keyC, description: null });
    device.peerOps = [];
    server = await startGrpcServer("127.0.0.1", port);
    await until(() => client.connected && client.connections > connectionsBefore, 10_000, "reconnected");
    expect(device.peerKeys()).toEqual([keyB, keyC].sort());
    // Only the stray peer was removed and carol's added; bob's peer was not touched.
    expect(device.peerOps.map(opLabel).sort()).toEqual([`+${keyC}`, `-${stray}`].sort());
    expect(device.creations).toBe(1);
  });
});

describe("gateway agent over TLS with a private CA", () => {
  it("connects through DEFGUARD_GRPC_CA, and is cut off for good when the token is regenerated", async () => {
    const pki = makeTestPki();
    const saved = { cert: process.env.DEFGUARD_GRPC_CERT, key: process.env.DEFGUARD_GRPC_KEY };
    process.env.DEFGUARD_GRPC_CERT = pki.serverCert;
    process.env.DEFGUARD_GRPC_KEY = pki.serverKey;
    const tlsPort = await freePort();
    const tlsServer = await startGrpcServer("127.0.0.1", tlsPort);
    const tlsLogs: string[] = [];
    const log: Log = (level, msg) => tlsLogs.push(`${level} ${msg}`);
    const id = (await createLocation(ACTOR, location("Secure", "198.51.100.129/25"))).id;
    const base: GatewayConfig = {
      token: gatewayToken(id, secret("gatewaySecret")),
      grpcTarget: `localhost:${tlsPort}`,
      tls: true,
      ca: readFileSync(pki.caCert),
      grpcUrl: `https://localhost:${tlsPort}`,
      ifname: "wg-fake",
      userspace: true,
      wireguardGo: "wireguard-go",
      statsPeriod: 1,
      statsKeepalive: 10,
      reportPeriod: 60,
      preUp: null,
      postUp: null,
      preDown: null,
      postDown: null,
      healthPort: null,
      name: null,
      hostname: "gw-tls",
      firewall: false,
      teardownOnExit: false,
      backoffMinMs: 100,
      backoffMaxMs: 300,
    };
    const dev = new FakeDevice();
    const agent = new GatewayClient(base, new InterfaceManager(base, dev, log), log);
    const run = agent.run();
    try {
      await until(() => agent.connected, 8000, "connected over TLS");
      expect(dev.state!.addresses).toEqual(["198.51.100.129/25"]);
      const connections = agent.connections;
      await rotateToken(ACTOR, id);
      await until(() => !agent.connected, 1000, "cut off within a second");
      expect(tlsLogs.some((l) => l.includes("UNAUTHENTICATED"))).toBe(true);
      // It keeps retrying with backoff, and never gets in with the old token.
      await new Promise((r) => setTimeout(r, 1000));
      expect(agent.connected).toBe(false);
      expect(agent.connections).toBe(connections);
    } finally {
      agent.stop();
      await run;
      await tlsServer.stop();
      for (const [k, v] of [["DEFGUARD_GRPC_CERT", saved.cert], ["DEFGUARD_GRPC_KEY", saved.key]] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
      pki.cleanup();
    }
  });
});

describe("gateway agent against a console without GatewaySyncService (defguard's)", () => {
  it("falls back to GatewayService: applies the configuration and its updates, acknowledges nothing", async () => {
    // A console that offers only gateway.GatewayService, like defguard's.
    const peerKey = generateKeyPair().publicKey;
    const later = generateKeyPair().publicKey;
    let stream: grpc.ServerWritableStream<unknown, unknown> | null = null;
    const legacy = new grpc.Server();
    legacy.addService(loadGatewayService().service, {
      Config: (_call: unknown, cb: grpc.sendUnaryData<unknown>) =>
        cb(null, { name: "Legacy", prvkey: generateKeyPair().privateKey, port: 51830, addresses: ["192.0.2.201/24"], peers: [{ pubkey: peerKey, allowed_ips: ["192.0.2.202/32"] }] }),
      Updates: (call: grpc.ServerWritableStream<unknown, unknown>) => {
        call.sendMetadata(new grpc.Metadata());
        stream = call;
      },
      Stats: (call: grpc.ServerReadableStream<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => {
        call.on("data", () => {});
        call.on("end", () => cb(null, {}));
        call.on("error", () => {});
      },
    });
    const legacyPort = await new Promise<number>((res, rej) => legacy.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (e, p) => (e ? rej(e) : res(p))));
    const legacyLogs: string[] = [];
    const log: Log = (level, msg) => legacyLogs.push(`${level} ${msg}`);
    const base: GatewayConfig = {
      token: "not-checked",
      grpcTarget: `127.0.0.1:${legacyPort}`,
      tls: false,
      ca: null,
      grpcUrl: `http://127.0.0.1:${legacyPort}`,
      ifname: "wg-fake",
      userspace: true,
      wireguardGo: "wireguard-go",
      statsPeriod: 60,
      statsKeepalive: 10,
      reportPeriod: 1,
      preUp: null,
      postUp: null,
      preDown: null,
      postDown: null,
      healthPort: null,
      name: null,
      hostname: "gw-legacy",
      firewall: false,
      teardownOnExit: false,
      backoffMinMs: 100,
      backoffMaxMs: 300,
    };
    const dev = new FakeDevice();
    const agent = new GatewayClient(base, new InterfaceManager(base, dev, log), log);
    const run = agent.run();
    try {
      await until(() => agent.connected, 8000, "connected to the legacy console");
      expect(dev.peerKeys()).toEqual([peerKey]);
      expect(legacyLogs.some((l) => l.includes("does not offer revision acknowledgements"))).toBe(true);
      stream!.write({ update_type: "CREATE", peer: { pubkey: later, allowed_ips: ["192.0.2.203/32"] } });
      await until(() => dev.peerKeys().includes(later), 5000, "update applied");
      expect(agent.appliedRevision).toBeNull();
      expect(await agent.reportNow()).toBeNull();
    } finally {
      agent.stop();
      await run;
      legacy.forceShutdown();
    }
  });
});
