/**
 * Gateway stats → per-interval transfer, presence by handshake age against the location's
 * peer_disconnect_threshold (with activity events), and the overview's stats API.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GET as statsGet } from "@/app/api/v1/network/stats/route";
import { GET as locStatsGet } from "@/app/api/v1/network/[id]/stats/route";
import { GET as usersStatsGet } from "@/app/api/v1/network/[id]/stats/users/route";
import { createLocation } from "@/lib/locations/service";
import { locationSchema } from "@/lib/locations/schema";
import { createUserDevice, listUserDevices } from "@/lib/devices/service";
import { ingestBatch } from "@/lib/stats/ingest";
import { updatePresence } from "@/lib/jobs/presence";
import { bucketSeconds } from "@/lib/stats/service";
import { getUserInfo } from "@/lib/users/service";
import { generateKeyPair } from "@/lib/wireguard/keys";
import { call, createUser, query, signIn, type Jar } from "./helpers";

const ACTOR = { userId: null, username: "test", ip: null };
let admin: Jar;
let locationId: number;
let key: string;
let deviceId: number;
let userId: number;

beforeAll(async () => {
  await createUser({ username: "boss", isAdmin: true });
  admin = await signIn("boss");
  userId = (await createUser({ username: "walker" })).id;
  locationId = (await createLocation(ACTOR, locationSchema.parse({ name: "HQ", address: "10.5.0.1/24", endpoint: "vpn.example.com", port: 51820, peer_disconnect_threshold: 180 }))).id;
  key = generateKeyPair().publicKey;
  deviceId = (await createUserDevice(ACTOR, "walker", { name: "laptop", wireguard_pubkey: key, description: null })).device.id;
});

describe("ingest and presence", () => {
  it("turns cumulative counters into deltas and marks the device connected, logging it", async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await ingestBatch(locationId, [{ public_key: key, endpoint: "198.51.100.9:51000", upload: 100, download: 200, latest_handshake: now }])).toBe(1);
    expect(await ingestBatch(locationId, [{ public_key: key, endpoint: "198.51.100.9:51000", upload: 250, download: 260, latest_handshake: now }])).toBe(1);
    // An interface restart resets counters: the new value is the delta.
    expect(await ingestBatch(locationId, [{ public_key: key, endpoint: "198.51.100.9:51000", upload: 30, download: 40, latest_handshake: now }])).toBe(1);
    const rows = await query<{ upload: number; download: number }>("select upload::int, download::int from device_stats where device_id = $1 order by id", [deviceId]);
    expect(rows).toEqual([
      { upload: 100, download: 200 },
      { upload: 150, download: 60 },
      { upload: 30, download: 40 },
    ]);
    expect(await updatePresence()).toEqual({ connected: 1, disconnected: 0 });
    expect(await updatePresence()).toEqual({ connected: 0, disconnected: 0 });
    const [ev] = await query<{ event: string; module: string; ip: string; device: string; location: string }>(
      "select event, module, ip, device, location from activity_log where event = 'vpn_client_connected'",
    );
    expect(ev).toEqual({ event: "vpn_client_connected", module: "vpn", ip: "198.51.100.9", device: "laptop", location: "HQ" });
    const [dev] = await listUserDevices(userId);
    expect(dev.networks[0]).toMatchObject({ is_active: true, last_connected_ip: "198.51.100.9", last_connected_location: "HQ" });
  });

  it("a handshake older than the threshold marks the device disconnected", async () => {
    await query("update device_locations set last_handshake = now() - interval '181 seconds' where device_id = $1", [deviceId]);
    expect(await updatePresence()).toEqual({ connected: 0, disconnected: 1 });
    expect(await query("select 1 from activity_log where event = 'vpn_client_disconnected'")).toHaveLength(1);
    const [dev] = await listUserDevices(userId);
    expect(dev.networks[0].is_active).toBe(false);
  });

  it("samples for unknown keys are skipped", async () => {
    expect(await ingestBatch(locationId, [{ public_key: generateKeyPair().publicKey, endpoint: "", upload: 1, download: 1, latest_handshake: 1 }])).toBe(0);
  });
});

describe("stats API", () => {
  it("sums transfer in the window, counts active and current devices, and drops empty points", async () => {
    const from = new Date(Date.now() - 3600_000).toISOString();
    const all = await call(statsGet, { jar: admin, path: `/api/v1/network/stats?from=${encodeURIComponent(from)}` });
    expect(all.status).toBe(200);
    expect(all.json).toMatchObject({ active_users: 1, active_user_devices: 1, active_network_devices: 0, upload: 280, download: 300, current_active_user_devices: 0 });
    expect(all.json.transfer_series.length).toBeGreaterThan(0);
    expect(all.json.transfer_series.every((p: { upload: number; download: number }) => p.upload + p.download > 0)).toBe(true);
    const one = await call(locStatsGet, { jar: admin, path: `/api/v1/network/${locationId}/stats`, params: { id: String(locationId) } });
    expect(one.json.upload).toBe(280);
    const future = await call(statsGet, { jar: admin, path: `/api/v1/network/stats?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}` });
    expect(future.json).toMatchObject({ upload: 0, download: 0, active_users: 0, transfer_series: [] });
    const bad = await call(statsGet, { jar: admin, path: "/api/v1/network/stats?from=yesterday-ish" });
    expect(bad.status).toBe(400);
  });

  it("lists active devices by user with their series", async () => {
    const res = await call(usersStatsGet, { jar: admin, path: `/api/v1/network/${locationId}/stats/users`, params: { id: String(locationId) } });
    expect(res.status).toBe(200);
    expect(res.json.user_devices).toHaveLength(1);
    expect(res.json.user_devices[0].user.username).toBe("walker");
    expect(res.json.user_devices[0].devices[0]).toMatchObject({ name: "laptop", public_ip: "198.51.100.9", wireguard_ips: ["10.5.0.2"] });
    expect(res.json.user_devices[0].devices[0].stats.reduce((a: number, p: { upload: number }) => a + p.upload, 0)).toBe(280);
    expect(res.json.network_devices).toEqual([]);
  });

  it("bucket width grows with the window and stays at least a minute", () => {
    const now = new Date("2026-01-01T12:00:00Z");
    expect(bucketSeconds(new Date(now.getTime() - 3600_000), now)).toBe(60);
    expect(bucketSeconds(new Date(now.getTime() - 24 * 3600_000), now)).toBe(1800);
    expect(bucketSeconds(now, now)).toBe(60);
  });
});

// Last: these change presence and transfer totals the stats API tests above count on.
describe("locking and clean-up", () => {
  it("presence skips rows a stats write holds and never waits for it", async () => {
    await query("update device_locations set last_handshake = now(), connected = false where device_id = $1", [deviceId]);
    const { getPool } = await import("@/lib/db");
    const holder = await getPool().connect();
    try {
      await holder.query("begin");
      await holder.query("select 1 from device_locations where device_id = $1 for update", [deviceId]);
      // Held elsewhere: nothing changes and the job returns at once.
      expect(await updatePresence()).toEqual({ connected: 0, disconnected: 0 });
    } finally {
      await holder.query("rollback");
      holder.release();
    }
    expect(await updatePresence()).toEqual({ connected: 1, disconnected: 0 });
  });

  it("a device's and a location's stats leave with them (no foreign keys on device_stats)", async () => {
    const other = generateKeyPair().publicKey;
    const otherId = (await createUserDevice(ACTOR, "walker", { name: "phone", wireguard_pubkey: other, description: null })).device.id;
    const now = Math.floor(Date.now() / 1000);
    expect(await ingestBatch(locationId, [{ public_key: other, endpoint: "", upload: 5, download: 5, latest_handshake: now }])).toBe(1);
    expect(await query("select 1 from device_stats where device_id = $1", [otherId])).toHaveLength(1);
    await query("delete from devices where id = $1", [otherId]);
    expect(await query("select 1 from device_stats where device_id = $1", [otherId])).toHaveLength(0);
    expect((await query("select 1 from device_stats where device_id = $1", [deviceId])).length).toBeGreaterThan(0);

    const spare = (await createLocation(ACTOR, locationSchema.parse({ name: "Spare", address: "10.6.0.1/24", endpoint: "vpn2.example.com", port: 51821 }))).id;
    await query("insert into device_stats (device_id, location_id, collected_at, upload, download) values ($1, $2, now(), 1, 1)", [deviceId, spare]);
    await query("insert into stats_hour (location_id, bucket, device_id, upload, download) values ($1, now(), $2, 1, 1)", [spare, deviceId]);
    await query("insert into stats_minute (location_id, bucket, upload, download) values ($1, now(), 1, 1)", [spare]);
    await query("delete from locations where id = $1", [spare]);
    expect(await query("select 1 from device_stats where location_id = $1", [spare])).toHaveLength(0);
    expect(await query("select 1 from stats_hour where location_id = $1 union all select 1 from stats_minute where location_id = $1", [spare])).toHaveLength(0);
  });
});

describe("per-device series", () => {
  it("sums samples per bucket, aligned to the bucket, empty buckets dropped; the user is their full UserInfo", async () => {
    const k = generateKeyPair().publicKey;
    const id = (await createUserDevice(ACTOR, "walker", { name: "tablet", wireguard_pubkey: k, description: null })).device.id;
    const minute = Math.floor(Date.now() / 60_000) * 60_000;
    const at = (msBefore: number) => new Date(minute - msBefore).toISOString();
    // Cumulative counters, as a gateway reports them: deltas 10/1, 5/2, 7/3, 0/0.
    for (const [when, up, down] of [
      [at(20 * 60_000), 10, 1],
      [at(10 * 60_000), 15, 3],
      [at(10 * 60_000 - 5_000), 22, 6], // same minute as the one above
      [at(5 * 60_000), 22, 6], // no traffic: no point
    ] as const) {
      await ingestBatch(locationId, [{ public_key: k, endpoint: "", upload: up, download: down, latest_handshake: 0 }], new Date(when));
    }
    // Half an hour: one-minute buckets (an hour would touch 61 of them, one more than a device's 60 points).
    const from = encodeURIComponent(at(30 * 60_000));
    const res = await call(usersStatsGet, { jar: admin, path: `/api/v1/network/${locationId}/stats/users?from=${from}`, params: { id: String(locationId) } });
    expect(res.status).toBe(200);
    const walker = res.json.user_devices.find((u: { user: { username: string } }) => u.user.username === "walker");
    expect(walker.user).toEqual(JSON.parse(JSON.stringify(await getUserInfo(userId))));
    const tablet = walker.devices.find((d: { name: string }) => d.name === "tablet");
    expect(tablet.stats).toEqual([
      { collected_at: at(20 * 60_000), upload: 10, download: 1 },
      { collected_at: at(10 * 60_000), upload: 12, download: 5 },
    ]);
  });
});

