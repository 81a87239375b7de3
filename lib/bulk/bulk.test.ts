/**
 * Bulk actions (POST /user/bulk, POST /device/bulk) through the real routes, database, gRPC
 * server and NOTIFY-fed hub: each action changes every object in one transaction, writes one
 * activity entry per changed object, and the gateways of each touched location receive exactly
 * one update (the whole configuration) rather than one per object. Unknown ids, unknown groups
 * and the last admin fail the whole action, naming what is wrong, and change nothing.
 */
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DELETE as userBulkDelete, GET as userBulkGet, POST as userBulk, PUT as userBulkPut } from "@/app/api/v1/user/bulk/route";
import { POST as deviceBulk } from "@/app/api/v1/device/bulk/route";
import { freePort } from "@/lib/db/embedded";
import { secret } from "@/lib/config";
import { loadProtos, startGrpcServer, type GrpcServerHandle } from "@/lib/grpc/server";
import { startHub, stopHub, subscriberCount } from "@/lib/gateways/hub";
import { gatewayToken } from "@/lib/gateways/jwt";
import { createLocation } from "@/lib/locations/service";
import { locationSchema } from "@/lib/locations/schema";
import { createUserDevice } from "@/lib/devices/service";
import { createNetworkDevice } from "@/lib/devices/network";
import { generateKeyPair } from "@/lib/wireguard/keys";
import { call, createUser, query, signIn, type Jar } from "@/tests/helpers";

const ACTOR = { userId: null, username: "bulk-test", ip: null };
let server: GrpcServerHandle;
let client: any;
let admin: Jar;
let plain: Jar;
let hq: number;
let branch: number;
const ids: Record<string, number> = {};

function md(token: string, hostname: string) {
  const m = new grpc.Metadata();
  m.set("authorization", token);
  m.set("hostname", hostname);
  return m;
}

function openUpdates(locationId: number, hostname: string) {
  const got: any[] = [];
  const stream = client.Updates({}, md(gatewayToken(locationId, secret("gatewaySecret")), hostname));
  stream.on("data", (u: any) => got.push(u));
  stream.on("error", () => {});
  return { got, stream };
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 8000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not in time`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Let anything still on its way arrive (updates come after the commit, through NOTIFY). */
const settle = () => new Promise((r) => setTimeout(r, 400));

const bulkUsers = (body: unknown, jar = admin) => call(userBulk, { method: "POST", jar, path: "/api/v1/user/bulk", body });
const bulkDevices = (body: unknown, jar = admin) => call(deviceBulk, { method: "POST", jar, path: "/api/v1/device/bulk", body });
const activity = async (event: string) =>
  (await query<{ description: string }>(`select description from activity_log where event = $1 order by id`, [event])).map((r) => r.description);
const location = (name: string, address: string) => locationSchema.parse({ name, address, endpoint: "vpn.example.com", port: 51820 });
const pub = () => generateKeyPair().publicKey;

beforeAll(async () => {
  await startHub();
  server = await startGrpcServer("127.0.0.1", await freePort());
  client = new (loadProtos().gateway.GatewayService as any)(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  hq = (await createLocation(ACTOR, location("bulk-hq", "198.18.0.1/24"))).id;
  branch = (await createLocation(ACTOR, location("bulk-branch", "198.18.4.1/22"))).id;
  ids.admin = (await createUser({ username: "bulk-admin", isAdmin: true })).id;
  ids.plain = (await createUser({ username: "bulk-plain" })).id;
  admin = await signIn("bulk-admin");
  plain = await signIn("bulk-plain");
  for (const name of ["anna", "bart", "cleo"]) {
    ids[name] = (await createUser({ username: `bulk-${name}` })).id;
    await createUserDevice(ACTOR, `bulk-${name}`, { name: `${name}-laptop`, wireguard_pubkey: pub(), description: null });
  }
  await query(`insert into groups (name) values ('bulk-team'), ('bulk-ops')`);
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  await stopHub();
});

describe("users", () => {
  it("unknown ids fail the whole action, naming them, and change nothing", async () => {
    const before = await activity("user_disabled");
    const r = await bulkUsers({ action: "disable", ids: [ids.anna, 990001, ids.bart, 990002] });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ field: "ids" });
    expect(r.json.msg).toContain("990001, 990002");
    const rows = await query<{ is_active: boolean }>(`select is_active from users where id = any($1)`, [[ids.anna, ids.bart]]);
    expect(rows.map((x) => x.is_active)).toEqual([true, true]);
    expect(await activity("user_disabled")).toEqual(before);
  });

  it("bad input: no selection, both selections, a group action without groups, an unknown action", async () => {
    for (const [body, field] of [
      [{ action: "disable" }, "ids"],
      [{ action: "disable", ids: [ids.anna], filter: {} }, "ids"],
      [{ action: "add_to_groups", ids: [ids.anna] }, "groups"],
      [{ action: "explode", ids: [ids.anna] }, "action"],
      [{ action: "disable", ids: [] }, "ids"],
    ] as const) {
      const r = await bulkUsers(body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.field).toBe(field);
    }
    const r = await bulkUsers({ action: "add_to_groups", ids: [ids.anna], groups: ["bulk-team", "no-such-group"] });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ field: "groups" });
    expect(r.json.msg).toContain("no-such-group");
    expect(await query(`select 1 from group_users gu join groups g on g.id = gu.group_id where g.name = 'bulk-team'`)).toEqual([]);
  });

  it("is for admins only", async () => {
    expect((await bulkUsers({ action: "disable", ids: [ids.anna] }, plain)).status).toBe(403);
    expect((await bulkDevices({ action: "delete", ids: [1] }, plain)).status).toBe(403);
  });

  it("disables and enables many users: one activity entry each, one update per gateway", async () => {
    const gw = openUpdates(hq, "gw-bulk-hq");
    await until(() => subscriberCount(hq) === 1, "gateway subscribed");
    const r = await bulkUsers({ action: "disable", ids: [ids.anna, ids.bart, ids.cleo] });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({ action: "disable", count: 3, changed: 3 });
    const rows = await query<{ username: string; is_active: boolean }>(`select username, is_active from users where id = any($1) order by username`, [[ids.anna, ids.bart, ids.cleo]]);
    expect(rows.every((x) => !x.is_active)).toBe(true);
    expect(await activity("user_disabled")).toEqual(["Disabled user bulk-anna", "Disabled user bulk-bart", "Disabled user bulk-cleo"]);
    await until(() => gw.got.length >= 1, "the batch");
    await settle();
    expect(gw.got).toHaveLength(1);
    expect(gw.got[0].update).toBe("network");
    // Their peers are gone from the configuration the gateway got.
    expect(gw.got[0].network.peers).toEqual([]);

    // Again: nothing changes, nothing is logged, nothing is sent.
    expect((await bulkUsers({ action: "disable", ids: [ids.anna, ids.bart] })).json).toEqual({ action: "disable", count: 2, changed: 0 });
    await settle();
    expect(gw.got).toHaveLength(1);

    expect((await bulkUsers({ action: "enable", ids: [ids.anna, ids.bart, ids.cleo] })).json).toMatchObject({ changed: 3 });
    await until(() => gw.got.length >= 2, "the second batch");
    await settle();
    expect(gw.got).toHaveLength(2);
    expect(gw.got[1].network.peers).toHaveLength(3);
    gw.stream.cancel();
  });

  it("still queues one webhook delivery per user (the gateway side alone is batched)", async () => {
    // A webhook on user changes (the delivery worker is not running here: rows are only queued).
    await query(`insert into webhooks (url, token, enabled, on_user_modified) values ('http://127.0.0.1:9/hook', 'x', true, true)`);
    const before = (await query(`select 1 from outbox where kind = 'webhook' and event = 'user_modified'`)).length;
    expect((await bulkUsers({ action: "disable", ids: [ids.anna, ids.bart] })).json).toMatchObject({ changed: 2 });
    const rows = await query<{ payload: string }>(`select payload from outbox where kind = 'webhook' and event = 'user_modified' order by id`);
    expect(rows.length - before).toBe(2);
    expect(rows.slice(-2).map((r) => JSON.parse(r.payload).username).sort()).toEqual(["bulk-anna", "bulk-bart"]);
    await query(`delete from webhooks`);
    expect((await bulkUsers({ action: "enable", ids: [ids.anna, ids.bart] })).json).toMatchObject({ changed: 2 });
  });

  it("adds to and removes from groups, by filter", async () => {
    const r = await bulkUsers({ action: "add_to_groups", filter: { search: "bulk-" , filter: "users" }, groups: ["bulk-team", "bulk-ops"] });
    expect(r.status, r.text).toBe(200);
    // bulk-plain, anna, bart, cleo (bulk-admin is an admin: left out by the filter).
    expect(r.json).toEqual({ action: "add_to_groups", count: 4, changed: 4 });
    const members = await query<{ username: string }>(
      `select u.username from group_users gu join users u on u.id = gu.user_id join groups g on g.id = gu.group_id where g.name = 'bulk-ops' order by 1`,
    );
    expect(members.map((m) => m.username)).toEqual(["bulk-anna", "bulk-bart", "bulk-cleo", "bulk-plain"]);
    // One entry per user, in id order.
    expect((await activity("user_groups_modified")).slice(-4)).toEqual(
      ["plain", "anna", "bart", "cleo"].map((n) => `Added bulk-${n} to groups bulk-ops, bulk-team`),
    );
    const rm = await bulkUsers({ action: "remove_from_groups", ids: [ids.anna, ids.bart], groups: ["bulk-ops"] });
    expect(rm.json).toEqual({ action: "remove_from_groups", count: 2, changed: 2 });
    expect((await activity("user_groups_modified")).slice(-2)).toEqual(["Removed bulk-anna from groups bulk-ops", "Removed bulk-bart from groups bulk-ops"]);
  });

  it("never disables or deletes the last active admin", async () => {
    for (const action of ["disable", "delete"]) {
      const r = await bulkUsers({ action, filter: { filter: "admins" } });
      expect(r.status).toBe(400);
      expect(r.json.msg).toMatch(/last active admin/);
    }
    expect((await query<{ is_active: boolean }>(`select is_active from users where id = $1`, [ids.admin]))[0].is_active).toBe(true);
  });

  it("start_enrollment needs SMTP and refuses users who already have a password, naming them", async () => {
    const fresh = await createUser({ username: "bulk-newbie", password: null });
    const r = await bulkUsers({ action: "start_enrollment", ids: [fresh.id] });
    expect(r.status).toBe(400);
    expect(r.json.msg).toMatch(/SMTP/);
    // An SMTP server nobody listens on: the refusal comes before any message is sent.
    await query(`update settings set smtp_server = '127.0.0.1', smtp_port = 1, smtp_sender = 'console@example.com'`);
    const refused = await bulkUsers({ action: "start_enrollment", ids: [fresh.id, ids.anna] });
    expect(refused.status).toBe(400);
    expect(refused.json.msg).toContain("bulk-anna");
    expect(await query(`select 1 from enrollment_tokens where user_id = $1`, [fresh.id])).toEqual([]);
  });

  it("deletes many users with their devices: one activity entry each", async () => {
    const doomed = [];
    for (const n of ["x1", "x2"]) {
      const u = await createUser({ username: `bulk-${n}` });
      await createUserDevice(ACTOR, `bulk-${n}`, { name: `${n}-phone`, wireguard_pubkey: pub(), description: null });
      doomed.push(u.id);
    }
    const gw = openUpdates(hq, "gw-bulk-hq-2");
    await until(() => subscriberCount(hq) === 1, "gateway subscribed");
    const r = await bulkUsers({ action: "delete", ids: doomed });
    expect(r.json).toEqual({ action: "delete", count: 2, changed: 2 });
    expect(await query(`select 1 from users where id = any($1)`, [doomed])).toEqual([]);
    expect(await query(`select 1 from devices where name in ('x1-phone', 'x2-phone')`)).toEqual([]);
    expect((await activity("user_removed")).slice(-2)).toEqual(["Removed user bulk-x1", "Removed user bulk-x2"]);
    await until(() => gw.got.length >= 1, "the batch");
    await settle();
    expect(gw.got.map((u) => u.update)).toEqual(["network"]);
    gw.stream.cancel();
  });
});

describe("devices", () => {
  const nd: number[] = [];

  it("moves network devices to another location: new addresses, one update per gateway", async () => {
    for (let i = 0; i < 6; i++) {
      const made = await createNetworkDevice({ ...ACTOR, userId: ids.admin }, {
        name: `edge-${i}`,
        description: null,
        location_id: hq,
        assigned_ips: [`198.18.0.${10 + i}`],
        wireguard_pubkey: pub(),
      });
      nd.push(made.device.id);
    }
    const atHq = openUpdates(hq, "gw-bulk-hq-3");
    const atBranch = openUpdates(branch, "gw-bulk-branch");
    await until(() => subscriberCount(hq) === 1 && subscriberCount(branch) === 1, "gateways subscribed");

    const unknown = await bulkDevices({ action: "move", ids: [...nd, 990003], location_id: branch });
    expect(unknown.status).toBe(400);
    expect(unknown.json.msg).toContain("990003");
    expect((await query(`select 1 from device_locations where location_id = $1`, [branch])).length).toBe(3); // the three user devices

    const userDevice = (await query<{ id: number }>(`select id from devices where name = 'anna-laptop'`))[0].id;
    const mixed = await bulkDevices({ action: "move", ids: [nd[0], userDevice], location_id: branch });
    expect(mixed.status).toBe(400);
    expect(mixed.json.msg).toContain("anna-laptop");
    expect((await bulkDevices({ action: "move", ids: nd })).json.field).toBe("location_id");

    const r = await bulkDevices({ action: "move", ids: nd, location_id: branch });
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({ action: "move", count: 6, changed: 6 });
    const links = await query<{ location_id: number; ips: string[] }>(`select location_id, ips from device_locations where device_id = any($1)`, [nd]);
    expect(links.every((l) => l.location_id === branch)).toBe(true);
    expect(new Set(links.map((l) => l.ips[0])).size).toBe(6);
    expect(links.every((l) => l.ips[0].startsWith("198.18.4.") || l.ips[0].startsWith("198.18.5."))).toBe(true);
    expect((await activity("network_device_moved")).slice(-1)).toEqual(["Moved network device edge-5 from bulk-hq to bulk-branch"]);
    expect(await activity("network_device_moved")).toHaveLength(6);

    await until(() => atHq.got.length >= 1 && atBranch.got.length >= 1, "the batches");
    await settle();
    expect(atHq.got.map((u) => u.update)).toEqual(["network"]);
    expect(atBranch.got.map((u) => u.update)).toEqual(["network"]);
    expect(atBranch.got[0].network.peers).toHaveLength(9);
    expect(atHq.got[0].network.peers).toHaveLength(3);
    atHq.stream.cancel();
    atBranch.stream.cancel();
  });

  it("regenerates configurations and deletes by filter", async () => {
    const regen = await bulkDevices({ action: "regenerate_configs", filter: { type: "network", search: "edge-" } });
    expect(regen.json).toEqual({ action: "regenerate_configs", count: 6, changed: 6 });
    expect(await activity("device_config_regenerated")).toHaveLength(6);
    const del = await bulkDevices({ action: "delete", filter: { type: "network", location_id: branch, search: "EDGE-" } });
    expect(del.json).toEqual({ action: "delete", count: 6, changed: 6 });
    expect(await query(`select 1 from devices where id = any($1)`, [nd])).toEqual([]);
    expect((await activity("network_device_removed")).slice(-6)).toHaveLength(6);
  });
});

describe("a user named bulk: /user/bulk and /device/bulk are also /user/{username} and /device/{username}", () => {
  let bulkJar: Jar;
  beforeAll(async () => {
    await createUser({ username: "bulk", email: "bulk@example.com" });
    bulkJar = await signIn("bulk");
  });

  it("POST /device/bulk with a device body adds the device of the user named bulk (as POST /device/{username}), for that user or an admin", async () => {
    const key = pub();
    const own = await bulkDevices({ name: "bulk-phone", wireguard_pubkey: key, description: null }, bulkJar);
    expect(own.status, own.text).toBe(201);
    expect(own.json.device).toMatchObject({ name: "bulk-phone", wireguard_pubkey: key });
    const byAdmin = await bulkDevices({ name: "bulk-tablet", wireguard_pubkey: pub() });
    expect(byAdmin.status, byAdmin.text).toBe(201);
    const rows = await query<{ name: string }>(`select d.name from devices d join users u on u.id = d.user_id where u.username = 'bulk' order by d.name`);
    expect(rows.map((r) => r.name)).toEqual(["bulk-phone", "bulk-tablet"]);
    // Another user may not add bulk's devices; a bad key is a 400 naming the field and adds nothing.
    expect((await bulkDevices({ name: "intruder", wireguard_pubkey: pub() }, plain)).status).toBe(403);
    const bad = await bulkDevices({ name: "bulk-bad", wireguard_pubkey: "not-a-key" }, bulkJar);
    expect(bad.status).toBe(400);
    expect(bad.json.field).toBe("wireguard_pubkey");
    expect((await query(`select 1 from devices where name in ('intruder', 'bulk-bad')`)).length).toBe(0);
  });

  it("a bulk body still needs an admin, whoever sends it (the user named bulk included)", async () => {
    const r = await bulkDevices({ action: "regenerate_configs", ids: [1] }, bulkJar);
    expect(r.status).toBe(403);
    expect(r.json.msg).toBe("admin access required");
    const empty = await bulkDevices({}, plain);
    expect(empty.status).toBe(403);
  });

  it("GET, PUT and DELETE /user/bulk are the user named bulk's, like /user/{username}", async () => {
    const me = await call(userBulkGet, { method: "GET", jar: bulkJar, path: "/api/v1/user/bulk" });
    expect(me.status, me.text).toBe(200);
    expect(me.json.user ?? me.json).toMatchObject({ username: "bulk" });
    expect((await call(userBulkGet, { method: "GET", jar: plain, path: "/api/v1/user/bulk" })).status).toBe(403);
    const current = me.json.user ?? me.json;
    const put = await call(userBulkPut, { method: "PUT", jar: bulkJar, path: "/api/v1/user/bulk", body: { ...current, first_name: "Bulky" } });
    expect(put.status, put.text).toBe(200);
    expect((await query<{ first_name: string }>(`select first_name from users where username = 'bulk'`))[0].first_name).toBe("Bulky");
    expect((await call(userBulkDelete, { method: "DELETE", jar: bulkJar, path: "/api/v1/user/bulk" })).status).toBe(403);
    const del = await call(userBulkDelete, { method: "DELETE", jar: admin, path: "/api/v1/user/bulk" });
    expect(del.status, del.text).toBe(200);
    expect((await query(`select 1 from users where username = 'bulk'`)).length).toBe(0);
  });
});
