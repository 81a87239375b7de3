/**
 * The gateway gRPC service end to end in-process: a real gRPC client (as a gateway would be)
 * against startGrpcServer + the NOTIFY-fed hub, on the test database. Changes made through
 * the services must reach an open Updates stream as the smallest update.
 */
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "@/lib/db/embedded";
import { secret } from "@/lib/config";
import { startGrpcServer, loadProtos, type GrpcServerHandle } from "@/lib/grpc/server";
import { startHub, stopHub, subscriberCount } from "@/lib/gateways/hub";
import { gatewayToken, signJwt } from "@/lib/gateways/jwt";
import { createLocation, updateLocation } from "@/lib/locations/service";
import { locationSchema } from "@/lib/locations/schema";
import { createUserDevice, deleteDevice } from "@/lib/devices/service";
import { createNetworkDevice } from "@/lib/devices/network";
import { networkDeviceSchema } from "@/lib/devices/schema";
import { updateUser } from "@/lib/users/service";
import { generateKeyPair } from "@/lib/wireguard/keys";
import { createUser, query } from "./helpers";

const ACTOR = { userId: null, username: "test", ip: null };
let server: GrpcServerHandle;
let client: any;
let locationId: number;
let otherLocationId: number;

function md(token: string, hostname = "gw-test") {
  const m = new grpc.Metadata();
  m.set("authorization", token);
  m.set("hostname", hostname);
  m.set("defguard-component-version", "1.5.0");
  return m;
}

const config = (m: grpc.Metadata) =>
  new Promise<any>((res, rej) => client.Config({ name: "edge-1" }, m, (err: grpc.ServiceError | null, v: any) => (err ? rej(err) : res(v))));

/** Open Updates and collect what arrives. */
function openUpdates(token: string, hostname = "gw-test") {
  const got: any[] = [];
  const waiters: (() => void)[] = [];
  const stream = client.Updates({}, md(token, hostname));
  stream.on("data", (u: any) => {
    got.push(u);
    waiters.splice(0).forEach((w) => w());
  });
  stream.on("error", () => {});
  return {
    got,
    stream,
    async next(count: number, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (got.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} updates, got ${got.length}: ${JSON.stringify(got)}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 100);
        });
      }
      return got[count - 1];
    },
  };
}

async function until(check: () => Promise<boolean>, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

const location = (name: string, address: string) =>
  locationSchema.parse({ name, address, endpoint: "vpn.example.com", port: 51820 });

beforeAll(async () => {
  await createUser({ username: "gw-admin", isAdmin: true });
  await startHub();
  server = await startGrpcServer("127.0.0.1", await freePort());
  const protos = loadProtos();
  client = new (protos.gateway.GatewayService as any)(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  locationId = (await createLocation(ACTOR, location("HQ", "10.1.0.1/24"))).id;
  otherLocationId = (await createLocation(ACTOR, location("Branch", "10.2.0.1/24"))).id;
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  await stopHub();
});

describe("authentication", () => {
  it("refuses a garbage token, a token signed with another secret and a missing token", async () => {
    for (const token of ["garbage", signJwt({ iss: "DefGuard", sub: `DEFGUARD-NETWORK-${locationId}`, client_id: String(locationId), exp: 2e9, nbf: 0 }, "not-the-secret")]) {
      await expect(config(md(token))).rejects.toMatchObject({ code: grpc.status.UNAUTHENTICATED });
    }
    await expect(new Promise((res, rej) => client.Config({}, new grpc.Metadata(), (e: any, v: any) => (e ? rej(e) : res(v))))).rejects.toMatchObject({
      code: grpc.status.UNAUTHENTICATED,
    });
    // Nothing was recorded for refused calls.
    expect(await query("select * from gateways")).toHaveLength(0);
  });

  it("a valid token for a location that does not exist gets NOT_FOUND", async () => {
    await expect(config(md(gatewayToken(424242, secret("gatewaySecret"))))).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  });
});

describe("Config", () => {
  it("returns the location's full desired state and records the gateway", async () => {
    await createUser({ username: "cfguser" });
    const { publicKey } = generateKeyPair();
    await createUserDevice(ACTOR, "cfguser", { name: "laptop", wireguard_pubkey: publicKey, description: null });
    const cfg = await config(md(gatewayToken(locationId, secret("gatewaySecret")), "gw-config"));
    expect(cfg).toMatchObject({ name: "HQ", port: 51820, addresses: ["10.1.0.1/24"] });
    expect(cfg.prvkey).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(cfg.peers).toContainEqual(expect.objectContaining({ pubkey: publicKey, allowed_ips: ["10.1.0.2/32"] }));
    const [g] = await query<{ hostname: string; name: string; version: string }>("select hostname, name, version from gateways where hostname = 'gw-config'");
    expect(g).toEqual({ hostname: "gw-config", name: "edge-1", version: "1.5.0" });
  });
});

describe("Updates", () => {
  it("streams the smallest update per change, only to that location's gateways", async () => {
    const token = gatewayToken(locationId, secret("gatewaySecret"));
    const other = openUpdates(gatewayToken(otherLocationId, secret("gatewaySecret")), "gw-branch");
    const u = openUpdates(token, "gw-stream");
    await until(async () => subscriberCount(locationId) === 1 && subscriberCount(otherLocationId) === 1);
    await until(async () => (await query("select 1 from gateways where hostname = 'gw-stream' and connected")).length === 1);

    const bob = await createUser({ username: "bob" });
    const { publicKey } = generateKeyPair();
    const created = await createUserDevice(ACTOR, "bob", { name: "phone", wireguard_pubkey: publicKey, description: null });
    const c = await u.next(1);
    expect(c.update_type).toBe("CREATE");
    expect(c.peer.pubkey).toBe(publicKey);
    expect(c.peer.allowed_ips).toEqual([created.configs.find((x: any) => x.network_id === locationId)!.address[0] + "/32"]);

    // Disabling the user removes their peer.
    await updateUser(ACTOR, true, "bob", { username: "bob", first_name: "Test", last_name: "bob", email: "bob@example.com", phone: null, is_active: false });
    const d = await u.next(2);
    expect(d).toMatchObject({ update_type: "DELETE", peer: { pubkey: publicKey } });

    // Enabling brings it back; deleting the device removes it.
    await updateUser(ACTOR, true, "bob", { username: "bob", first_name: "Test", last_name: "bob", email: "bob@example.com", phone: null, is_active: true });
    expect(await u.next(3)).toMatchObject({ update_type: "CREATE", peer: { pubkey: publicKey } });
    await deleteDevice(ACTOR, created.device.id, { userId: bob.id, isAdmin: false });
    expect(await u.next(4)).toMatchObject({ update_type: "DELETE", peer: { pubkey: publicKey } });

    // A location change is a network MODIFY with the full configuration.
    await updateLocation(ACTOR, locationId, { ...location("HQ", "10.1.0.1/24"), port: 51999 });
    const m = await u.next(5);
    expect(m.update_type).toBe("MODIFY");
    expect(m.network).toMatchObject({ name: "HQ", port: 51999 });

    // The other location's stream saw only what concerned it (bob's device in Branch).
    const branchPubkeys = other.got.map((x: any) => x.peer?.pubkey).filter(Boolean);
    expect(branchPubkeys.every((k: string) => k === publicKey)).toBe(true);
    expect(other.got.some((x: any) => x.network)).toBe(false);

    u.stream.cancel();
    other.stream.cancel();
    await until(async () => (await query("select 1 from gateways where hostname = 'gw-stream' and not connected and disconnected_at is not null")).length === 1);
    expect(subscriberCount(locationId)).toBe(0);
  });
});

describe("disabling an admin", () => {
  it("removes the admin's own devices, not the network devices they added", async () => {
    const u = openUpdates(gatewayToken(otherLocationId, secret("gatewaySecret")), "gw-admin-off");
    await until(async () => subscriberCount(otherLocationId) === 1);
    const adder = await createUser({ username: "adder", isAdmin: true });
    const own = generateKeyPair().publicKey;
    await createUserDevice(ACTOR, "adder", { name: "own-laptop", wireguard_pubkey: own, description: null });
    const router = generateKeyPair().publicKey;
    await createNetworkDevice(
      { userId: adder.id, username: "adder", ip: null },
      networkDeviceSchema.parse({ name: "branch-router", location_id: otherLocationId, assigned_ips: ["10.2.0.200"], wireguard_pubkey: router }),
    );
    await until(async () => u.got.filter((x: any) => x.update_type === "CREATE").length >= 2);

    await updateUser(ACTOR, true, "adder", { username: "adder", first_name: "Test", last_name: "adder", email: "adder@example.com", phone: null, is_active: false });
    // A marker change after the disable: everything the disable caused arrived before it.
    const marker = generateKeyPair().publicKey;
    await createUser({ username: "marker" });
    await createUserDevice(ACTOR, "marker", { name: "m", wireguard_pubkey: marker, description: null });
    await until(async () => u.got.some((x: any) => x.peer?.pubkey === marker));
    const deleted = u.got.filter((x: any) => x.update_type === "DELETE").map((x: any) => x.peer.pubkey);
    expect(deleted).toEqual([own]);
    u.stream.cancel();
  });
});

describe("Stats", () => {
  it("stores per-interval transfer from cumulative counters and ignores unknown keys", async () => {
    await createUser({ username: "statuser" });
    const { publicKey } = generateKeyPair();
    const dev = await createUserDevice(ACTOR, "statuser", { name: "desk", wireguard_pubkey: publicKey, description: null });
    const call = client.Stats(md(gatewayToken(locationId, secret("gatewaySecret"))), () => {});
    const now = Math.floor(Date.now() / 1000);
    const sample = (up: number, down: number, key = publicKey) => ({
      peer_stats: { public_key: key, endpoint: "198.51.100.7:40000", upload: up, download: down, keepalive_interval: 25, latest_handshake: now, allowed_ips: "10.1.0.9/32" },
    });
    call.write({ id: 1, empty: {} });
    call.write({ id: 2, ...sample(1000, 5000) });
    call.write({ id: 3, ...sample(1000, 1, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=") });
    await until(async () => (await query("select 1 from device_stats where device_id = $1", [dev.device.id])).length === 1);
    call.write({ id: 4, ...sample(1500, 9000) });
    call.end();
    await until(async () => (await query("select 1 from device_stats where device_id = $1", [dev.device.id])).length === 2);
    const rows = await query<{ upload: number; download: number; endpoint: string }>(
      "select upload::int, download::int, endpoint from device_stats where device_id = $1 order by id",
      [dev.device.id],
    );
    expect(rows).toEqual([
      { upload: 1000, download: 5000, endpoint: "198.51.100.7:40000" },
      { upload: 500, download: 4000, endpoint: "198.51.100.7:40000" },
    ]);
    const [dl] = await query<{ upload_total: number; last_endpoint: string }>(
      "select upload_total::int, last_endpoint from device_locations where device_id = $1 and location_id = $2",
      [dev.device.id, locationId],
    );
    expect(dl).toEqual({ upload_total: 1500, last_endpoint: "198.51.100.7:40000" });
  });
});
