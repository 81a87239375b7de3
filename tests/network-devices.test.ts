/**
 * Standalone network devices through the real route handlers on a real database: only in
 * locations without MFA, next free address, address checks, creation with a chosen address
 * (in use → 409, outside → 400), the list view, edit, config and delete, and their survival
 * across the location's group reconciliation.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/wireguard/config";
import { createUser, query, signIn, type Jar } from "./helpers";
import { addressesIn, api, counts, expectLocationInvariants, ipsOf, locationBody, mkDevice, mkGroup, mkLocation, newKey, uniq } from "./wireguard-fixtures";

let admin: Jar;
let alice: Jar;
let office: { id: number; name: string; pubkey: string };
let aliceDevice: number;

beforeAll(async () => {
  await createUser({ username: "root", isAdmin: true });
  await createUser({ username: "alice", groups: ["office-g"] });
  admin = await signIn("root");
  alice = await signIn("alice");
  office = await mkLocation(admin, {
    name: "Office",
    address: "10.40.0.1/24, fd40::1/64",
    allowed_groups: ["office-g"],
    dns: "10.40.0.1",
    allowed_ips: "10.40.0.0/24",
  });
  aliceDevice = (await mkDevice(alice, "alice")).device.id; // 10.40.0.2, fd40::2
});

const body = (over: Record<string, unknown> = {}) => ({
  name: uniq("nd"),
  description: "rack 3",
  location_id: office.id,
  assigned_ips: ["10.40.0.100"],
  wireguard_pubkey: newKey(),
  ...over,
});

describe("network devices", () => {
  it.each(["internal", "external"])("a location with %s MFA is refused: 'network devices can only be added to locations without MFA'", async (mode) => {
    const l = await mkLocation(admin, { address: "10.41.0.1/24", allowed_groups: ["office-g"], location_mfa_mode: mode });
    const before = await counts();
    const res = await api.createNetworkDevice(admin, body({ location_id: l.id, assigned_ips: ["10.41.0.10"] }));
    expect(res.status).toBe(400);
    expect(res.json.field).toBe("location_id");
    expect(res.json.msg).toContain("network devices can only be added to locations without MFA");
    expect(await counts()).toEqual(before);
    await api.deleteLocation(admin, l.id);
  });

  it("GET /device/network/ip/{location}: the next free address of each CIDR, split as defguard shows it", async () => {
    const res = await api.nextIp(admin, office.id);
    expect(res.status).toBe(200);
    expect(res.json).toEqual([
      { ip: "10.40.0.3", network_part: "10.40.0.", modifiable_part: "3", network_prefix: "24" },
      { ip: "fd40::3", network_part: "fd40:0000:0000:0000:", modifiable_part: "0000:0000:0000:0003", network_prefix: "64" },
    ]);
    expect((await api.nextIp(admin, 999999)).status).toBe(404);
    expect((await api.nextIp(alice, office.id)).status).toBe(403);
  });

  it("GET /device/network/ip/{location}: 404 {msg} when a network of the location is full", async () => {
    await mkGroup(admin, "nobody-g");
    const tiny = await mkLocation(admin, { address: "10.43.0.1/30", allowed_groups: ["nobody-g"] });
    const first = await api.nextIp(admin, tiny.id);
    expect(first.json).toEqual([{ ip: "10.43.0.2", network_part: "10.43.0.", modifiable_part: "2", network_prefix: "30" }]);
    const made = await api.createNetworkDevice(admin, body({ name: "fills-it", location_id: tiny.id, assigned_ips: ["10.43.0.2"], wireguard_pubkey: newKey() }));
    expect(made.status, made.text).toBe(201);
    const full = await api.nextIp(admin, tiny.id);
    expect(full.status).toBe(404);
    expect(full.json.msg).toContain("no free address left in 10.43.0.1/30");
    await api.deleteNetworkDevice(admin, made.json.device.id);
    await api.deleteLocation(admin, tiny.id);
  });

  it("POST /device/network/ip/{location} {ips}: defguard's [{available, valid}] per address, in order", async () => {
    const res = await api.checkIps(admin, office.id, {
      ips: ["10.40.0.2", "fd40:0:0:0::10", "10.40.0.50", "10.40.0.1", "10.40.0.0", "10.40.0.255", "10.41.0.5", "garbage", "010.40.0.5"],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual([
      { available: false, valid: true }, // alice's device
      { available: true, valid: true }, // any spelling of a free address
      { available: true, valid: true }, // each address is checked on its own
      { available: false, valid: true }, // gateway
      { available: false, valid: true }, // network
      { available: false, valid: true }, // broadcast
      { available: false, valid: false }, // outside
      { available: false, valid: false },
      { available: false, valid: false },
    ]);
    const single = await api.checkIps(admin, office.id, { ips: "10.40.0.50" });
    expect(single.json).toEqual([{ available: true, valid: true }]);
    // A device's own addresses count as available when it is named.
    const own = await api.checkIps(admin, office.id, { ips: ["10.40.0.2"], device_id: aliceDevice });
    expect(own.json).toEqual([{ available: true, valid: true }]);
    expect((await api.checkIps(admin, office.id, { ips: [] })).status).toBe(400);
    expect((await api.checkIps(admin, office.id, { ips: 5 })).status).toBe(400);
    expect((await api.checkIps(alice, office.id, { ips: ["10.40.0.9"] })).status).toBe(403);
  });

  it("POST /device/network → 201 {device, config} with the chosen addresses", async () => {
    const before = await counts();
    const key = newKey();
    const res = await api.createNetworkDevice(admin, body({ name: "printer", assigned_ips: "10.40.0.100, fd40::100", wireguard_pubkey: key }));
    expect(res.status, res.text).toBe(201);
    expect(res.json.device).toEqual({
      id: expect.any(Number),
      name: "printer",
      description: "rack 3",
      wireguard_pubkey: key,
      assigned_ips: ["10.40.0.100", "fd40::100"],
      location: { id: office.id, name: "Office" },
      added_by: "root",
      added_date: expect.any(String),
      configured: true,
    });
    expect(res.json.config).toMatchObject({
      network_id: office.id,
      address: ["10.40.0.100", "fd40::100"],
      pubkey: office.pubkey,
      endpoint: "vpn.example.com:51820",
    });
    const parsed = parseConfig(res.json.config.config);
    expect(parsed.interface).toMatchObject({ privateKey: null, addresses: ["10.40.0.100", "fd40::100"], dns: ["10.40.0.1"] });
    expect(parsed.peers[0]).toMatchObject({ publicKey: office.pubkey, allowedIps: ["10.40.0.0/24"] });
    expect(await counts()).toMatchObject({ devices: before.devices + 1, device_locations: before.device_locations + 1 });
    const [row] = await query<{ device_type: string; user_id: number }>("select device_type, user_id from devices where id = $1", [res.json.device.id]);
    expect(row.device_type).toBe("network");
    await expectLocationInvariants(office.id);
  });

  it("an address in use → 409 'IP is already in use'; outside the CIDR or reserved → 400 'IP is invalid'; nothing written", async () => {
    const before = await counts();
    const taken = await api.createNetworkDevice(admin, body({ assigned_ips: ["10.40.0.2"] }));
    expect(taken.status).toBe(409);
    expect(taken.json.msg).toContain("IP is already in use");
    for (const ip of ["10.99.0.5", "10.40.0.1", "10.40.0.255", "nonsense", "fd41::5"]) {
      const res = await api.createNetworkDevice(admin, body({ assigned_ips: [ip] }));
      expect(res.status, ip).toBe(400);
      expect(res.json.field).toBe("assigned_ips");
      expect(res.json.msg).toContain("IP is invalid");
    }
    expect(await counts()).toEqual(before);
  });

  it("a duplicate name or key → 409; bad input → 400; unknown location → 404; nothing written", async () => {
    const first = await api.createNetworkDevice(admin, body({ name: "camera", assigned_ips: ["10.40.0.110"] }));
    expect(first.status).toBe(201);
    const before = await counts();
    const name = await api.createNetworkDevice(admin, body({ name: "camera", assigned_ips: ["10.40.0.111"] }));
    expect(name.status).toBe(409);
    expect(name.json.msg).toBe("Device with this name already exists");
    const key = await api.createNetworkDevice(admin, body({ assigned_ips: ["10.40.0.112"], wireguard_pubkey: first.json.device.wireguard_pubkey }));
    expect(key.status).toBe(409);
    const [userKey] = await query<{ wireguard_pubkey: string }>("select wireguard_pubkey from devices where id = $1", [aliceDevice]);
    expect((await api.createNetworkDevice(admin, body({ assigned_ips: ["10.40.0.113"], wireguard_pubkey: userKey.wireguard_pubkey }))).status).toBe(409);
    for (const [over, field] of [
      [{ wireguard_pubkey: "bad" }, "wireguard_pubkey"],
      [{ assigned_ips: [] }, "assigned_ips"],
      [{ location_id: "abc" }, "location_id"],
      [{ name: "" }, "name"],
      [{ name: "x".repeat(1_000_000) }, "name"],
    ] as const) {
      const res = await api.createNetworkDevice(admin, body(over));
      expect(res.status).toBe(400);
      expect(res.json.field).toBe(field);
    }
    expect((await api.createNetworkDevice(admin, body({ location_id: 999999 }))).status).toBe(404);
    expect((await api.createNetworkDevice(alice, body({ assigned_ips: ["10.40.0.114"] }))).status).toBe(403);
    expect(await counts()).toEqual(before);
  });

  it("the location's own public key is refused as a device key (409), like for user devices", async () => {
    const before = await counts();
    const res = await api.createNetworkDevice(admin, body({ assigned_ips: ["10.40.0.115"], wireguard_pubkey: office.pubkey }));
    expect(res.status, res.text).toBe(409);
    expect(await counts()).toEqual(before);
    if (res.status === 201) await api.deleteNetworkDevice(admin, res.json.device.id);
  });

  it("GET /device/network lists them ordered by name with added_by, added_date and location; GET /device/network/{id} one", async () => {
    const res = await api.listNetworkDevices(admin);
    expect(res.status).toBe(200);
    const rows = await query<{ name: string }>("select name from devices where device_type = 'network' order by name");
    expect(res.json.map((d: { name: string }) => d.name)).toEqual(rows.map((r) => r.name));
    const printer = res.json.find((d: { name: string }) => d.name === "printer");
    expect(printer).toMatchObject({ added_by: "root", location: { id: office.id, name: "Office" }, assigned_ips: ["10.40.0.100", "fd40::100"] });
    expect(Date.parse(printer.added_date)).not.toBeNaN();
    const one = await api.getNetworkDevice(admin, printer.id);
    expect(one.status).toBe(200);
    expect(one.json).toEqual(printer);
    expect((await api.getNetworkDevice(admin, aliceDevice)).status).toBe(404);
    expect((await api.listNetworkDevices(alice)).status).toBe(403);
  });

  it("PUT /device/network/{id}: new name, description and addresses; its own address stays valid; a taken one → 409, nothing changed", async () => {
    const created = await api.createNetworkDevice(admin, body({ name: "sensor", assigned_ips: ["10.40.0.120"] }));
    expect(created.status).toBe(201);
    const id = created.json.device.id;
    const key = created.json.device.wireguard_pubkey;
    const keep = await api.updateNetworkDevice(admin, id, { name: "sensor", location_id: office.id, assigned_ips: ["10.40.0.120"], wireguard_pubkey: key });
    expect(keep.status, keep.text).toBe(200);
    const res = await api.updateNetworkDevice(admin, id, {
      name: "sensor-2",
      description: "roof",
      location_id: office.id,
      assigned_ips: ["10.40.0.121", "fd40::121"],
      wireguard_pubkey: key,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id, name: "sensor-2", description: "roof", assigned_ips: ["10.40.0.121", "fd40::121"] });
    expect(await ipsOf(id, office.id)).toEqual(["10.40.0.121", "fd40::121"]);
    // 10.40.0.120 is free again.
    expect((await api.checkIps(admin, office.id, { ips: ["10.40.0.120"] })).json[0].available).toBe(true);

    const taken = await api.updateNetworkDevice(admin, id, { name: "sensor-2", location_id: office.id, assigned_ips: ["10.40.0.2"], wireguard_pubkey: key });
    expect(taken.status).toBe(409);
    expect(taken.json.msg).toContain("IP is already in use");
    expect(await ipsOf(id, office.id)).toEqual(["10.40.0.121", "fd40::121"]);

    const other = await mkLocation(admin, { address: "10.42.0.1/24", allowed_groups: ["office-g"] });
    const move = await api.updateNetworkDevice(admin, id, { name: "sensor-2", location_id: other.id, assigned_ips: ["10.42.0.9"], wireguard_pubkey: key });
    expect(move.status).toBe(400);
    expect(move.json.field).toBe("location_id");
    expect(await ipsOf(id, office.id)).toEqual(["10.40.0.121", "fd40::121"]);
    await api.deleteLocation(admin, other.id);
    expect((await api.updateNetworkDevice(admin, 999999, body())).status).toBe(404);
  });

  it("GET /device/network/{id}/config: the wg-quick text as a .conf download", async () => {
    const created = await api.createNetworkDevice(admin, body({ name: "door cam", assigned_ips: ["10.40.0.130"] }));
    expect(created.status, created.text).toBe(201);
    const res = await api.networkDeviceConfig(admin, created.json.device.id);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="Office-door_cam.conf"');
    expect(res.text).toBe(created.json.config.config);
    expect(res.text).toContain("PrivateKey = YOUR_PRIVATE_KEY");
    expect(res.text).toContain("Address = 10.40.0.130");
    expect(parseConfig(res.text).peers[0].publicKey).toBe(office.pubkey);
    expect((await api.networkDeviceConfig(alice, created.json.device.id)).status).toBe(403);
    expect((await api.networkDeviceConfig(admin, aliceDevice)).status).toBe(404);
    expect((await api.networkDeviceConfig(admin, 999999)).status).toBe(404);
  });

  it("DELETE /device/network/{id}: gone with its address, which is free again", async () => {
    const created = await api.createNetworkDevice(admin, body({ assigned_ips: ["10.40.0.140"] }));
    const id = created.json.device.id;
    expect((await api.deleteNetworkDevice(alice, id)).status).toBe(403);
    const res = await api.deleteNetworkDevice(admin, id);
    expect(res.status).toBe(200);
    expect(await query("select 1 from devices where id = $1", [id])).toHaveLength(0);
    expect(await query("select 1 from device_locations where device_id = $1", [id])).toHaveLength(0);
    expect((await api.checkIps(admin, office.id, { ips: ["10.40.0.140"] })).json[0].available).toBe(true);
    expect((await api.deleteNetworkDevice(admin, id)).status).toBe(404);
    // A user device id is not a network device.
    expect((await api.deleteNetworkDevice(admin, aliceDevice)).status).toBe(404);
  });

  it("user devices never take a network device's address, and group changes leave network devices alone", async () => {
    // Fill the next free addresses with a network device, then add user devices.
    const next = ((await api.nextIp(admin, office.id)).json as { ip: string }[]).map((a) => a.ip);
    const nd = await api.createNetworkDevice(admin, body({ assigned_ips: next }));
    expect(nd.status, nd.text).toBe(201);
    const d = await mkDevice(alice, "alice");
    expect(d.configs.find((c) => c.network_id === office.id).address).not.toEqual(next);
    await createUser({ username: "nd-joiner" });
    expect((await api.addMember(admin, "office-g", "nd-joiner")).status).toBe(200);
    expect((await api.removeMember(admin, "office-g", "alice")).status).toBe(200);
    expect(await ipsOf(nd.json.device.id, office.id)).toEqual(next);
    expect(await ipsOf(d.device.id, office.id)).toBeNull();
    const res = await api.updateLocation(admin, office.id, locationBody({ name: "Office", address: "10.40.0.1/24, fd40::1/64", allowed_groups: [] }));
    expect(res.status, res.text).toBe(200);
    expect(await ipsOf(nd.json.device.id, office.id)).toEqual(next);
    expect((await addressesIn(office.id)).size).toBeGreaterThan(1);
    await expectLocationInvariants(office.id);
  });
});
