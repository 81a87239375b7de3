/**
 * User devices through the real route handlers on a real database: creation with one
 * wg-quick config per usable location (checked line by line, parsed back, and fed to the real
 * `wg-quick strip`), name/key uniqueness, who may add/read/change/delete, the UserDevice view,
 * the config download, and the peers a gateway gets (desiredPeers).
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { parseConfig } from "@/lib/wireguard/config";
import { generateKeyPair } from "@/lib/wireguard/keys";
import { desiredPeers } from "@/lib/gateways/service";
import { encryptSecret } from "@/lib/crypto";
import { createUser, query, signIn, type Jar } from "./helpers";
import { api, counts, ipsOf, mkDevice, mkLocation, newKey, uniq } from "./wireguard-fixtures";

let admin: Jar;
let alice: Jar;
let bob: Jar;
let main: { id: number; name: string; pubkey: string };
let aliceId: number;
let bobId: number;

const MAIN = {
  name: "Main",
  address: "10.30.0.1/24, fd30::1/64",
  endpoint: "vpn.example.com",
  port: 51821,
  allowed_ips: "10.30.0.0/24, 192.168.10.0/24",
  dns: "10.30.0.1, 1.1.1.1",
  keepalive_interval: 25,
};

beforeAll(async () => {
  await createUser({ username: "root", isAdmin: true });
  aliceId = (await createUser({ username: "alice" })).id;
  bobId = (await createUser({ username: "bob" })).id;
  admin = await signIn("root");
  alice = await signIn("alice");
  bob = await signIn("bob");
  main = await mkLocation(admin, MAIN);
});

const configFor = (configs: any[], locationId: number) => configs.find((c) => c.network_id === locationId);

// ------------------------------------------------------------------------------ create

describe("POST /device/{username}", () => {
  it("201 {device, configs}: the device and a wg-quick config for every location the owner may use", async () => {
    const before = await counts();
    const key = newKey();
    const res = await api.createDevice(alice, "alice", { name: "laptop", wireguard_pubkey: key, description: "work laptop" });
    expect(res.status, res.text).toBe(201);
    expect(res.json.device).toEqual({
      id: expect.any(Number),
      name: "laptop",
      wireguard_pubkey: key,
      user_id: aliceId,
      created: expect.any(String),
      description: "work laptop",
      device_type: "user",
      configured: true,
    });
    expect(new Date(res.json.device.created).toISOString()).toBe(res.json.device.created);
    expect(res.json.configs).toHaveLength(1);
    const cfg = res.json.configs[0];
    expect(cfg).toEqual({
      network_id: main.id,
      network_name: "Main",
      config: expect.any(String),
      address: ["10.30.0.2", "fd30::2"],
      endpoint: "vpn.example.com:51821",
      allowed_ips: ["10.30.0.0/24", "192.168.10.0/24"],
      pubkey: main.pubkey,
      dns: "10.30.0.1, 1.1.1.1",
      keepalive_interval: 25,
      location_mfa_mode: "disabled",
    });
    expect(cfg.config).toBe(
      [
        "[Interface]",
        "PrivateKey = YOUR_PRIVATE_KEY",
        "Address = 10.30.0.2, fd30::2",
        "DNS = 10.30.0.1, 1.1.1.1",
        "",
        "[Peer]",
        `PublicKey = ${main.pubkey}`,
        "AllowedIPs = 10.30.0.0/24, 192.168.10.0/24",
        "Endpoint = vpn.example.com:51821",
        "PersistentKeepalive = 25",
        "",
      ].join("\n"),
    );
    // Parsed back with the project's own wg-quick parser.
    const parsed = parseConfig(cfg.config);
    expect(parsed.interface).toEqual({ privateKey: null, addresses: ["10.30.0.2", "fd30::2"], dns: ["10.30.0.1", "1.1.1.1"] });
    expect(parsed.peers).toEqual([
      {
        publicKey: main.pubkey,
        allowedIps: ["10.30.0.0/24", "192.168.10.0/24"],
        endpoint: "vpn.example.com:51821",
        persistentKeepalive: 25,
      },
    ]);
    const after = await counts();
    expect(after.devices).toBe(before.devices + 1);
    expect(after.device_locations).toBe(before.device_locations + 1);
    expect(await ipsOf(res.json.device.id, main.id)).toEqual(["10.30.0.2", "fd30::2"]);
    const [ev] = await query<{ event: string; device: string; username: string }>(
      "select event, device, username from activity_log order by id desc limit 1",
    );
    expect(ev).toEqual({ event: "device_added", device: "laptop", username: "alice" });
  });

  it("a location without DNS, keepalive or allowed IPs and with an IPv6 endpoint renders a valid config", async () => {
    await createUser({ username: "v6-user", groups: ["v6-g"] });
    const l = await mkLocation(admin, {
      address: "10.31.0.1/24",
      endpoint: "2001:db8::10",
      port: 51822,
      allowed_ips: [],
      dns: null,
      keepalive_interval: 0,
      allowed_groups: ["v6-g"],
    });
    const { configs } = await mkDevice(admin, "v6-user");
    const cfg = configFor(configs, l.id);
    expect(cfg.config).not.toMatch(/^DNS/m);
    expect(cfg.config).not.toMatch(/PersistentKeepalive/);
    expect(cfg.config).toContain("Endpoint = [2001:db8::10]:51822");
    expect(cfg.config).toContain("AllowedIPs = 0.0.0.0/0, ::/0");
    const parsed = parseConfig(cfg.config);
    expect(parsed.peers[0]).toEqual({ publicKey: l.pubkey, allowedIps: ["0.0.0.0/0", "::/0"], endpoint: "[2001:db8::10]:51822" });
    expect(parsed.interface.dns).toEqual([]);
    await api.deleteLocation(admin, l.id);
  });

  it("DeviceConfig.endpoint is the same host:port as the config's Endpoint line (IPv6 in brackets)", async () => {
    await createUser({ username: "ep-user", groups: ["ep-g"] });
    const l = await mkLocation(admin, { address: "10.32.0.1/24", endpoint: "2001:db8::20", port: 51823, allowed_groups: ["ep-g"] });
    try {
      const { configs } = await mkDevice(admin, "ep-user");
      const cfg = configFor(configs, l.id);
      const line = /^Endpoint = (.*)$/m.exec(cfg.config)![1];
      expect(line).toBe("[2001:db8::20]:51823");
      // "2001:db8::20:51823" would be one IPv6 address without a port.
      expect(cfg.endpoint).toBe(line);
    } finally {
      await api.deleteLocation(admin, l.id);
    }
  });

  const wgQuick = "/usr/bin/wg-quick";
  const wgSkip = !existsSync(wgQuick) ? `${wgQuick} is missing` : process.getuid?.() !== 0 ? "not running as root (wg-quick re-executes itself with sudo)" : null;
  if (wgSkip) console.log(`[devices.test] skipping the wg-quick check: ${wgSkip}`);

  it.skipIf(wgSkip !== null)("the config is accepted by the real `wg-quick strip`, which consumes Address and DNS and leaves only wg(8) keys", async () => {
    await createUser({ username: "wgq-user", groups: ["wgq-g"] });
    const l = await mkLocation(admin, { address: "10.33.0.1/24", endpoint: "2001:db8::30", dns: "10.33.0.1, corp.example", allowed_groups: ["wgq-g"] });
    const { configs } = await mkDevice(admin, "wgq-user");
    const dir = mkdtempSync(join(tmpdir(), "wgq-"));
    try {
      for (const cfg of configs) {
        // Once as served (placeholder key), once with a real private key as a client would fill it in.
        for (const text of [cfg.config, cfg.config.replace("YOUR_PRIVATE_KEY", generateKeyPair().privateKey)]) {
          const file = join(dir, "wg0.conf");
          writeFileSync(file, text, { mode: 0o600 });
          chmodSync(dir, 0o700);
          const out = spawnSync(wgQuick, ["strip", file], { encoding: "utf8" });
          expect(out.status, out.stderr).toBe(0);
          expect(out.stderr).toBe("");
          const allowed = /^(\[Interface\]|\[Peer\]|PrivateKey = \S+|ListenPort = \d+|PublicKey = \S+|PresharedKey = \S+|AllowedIPs = .+|Endpoint = \S+|PersistentKeepalive = \d+)?$/;
          for (const line of out.stdout.split("\n")) expect(line, `wg(8) does not know: ${line}`).toMatch(allowed);
          expect(out.stdout).not.toMatch(/^(Address|DNS)\b/m);
          expect(out.stdout).toContain(`PublicKey = ${cfg.pubkey}`);
          expect(out.stdout).toMatch(/^Endpoint = /m);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await api.deleteLocation(admin, l.id);
    }
  });

  it("a duplicate name for the same user → 409 'Device with this name already exists', nothing written; another user may reuse it", async () => {
    await mkDevice(alice, "alice", { name: "phone" });
    const before = await counts();
    for (const name of ["phone", "  phone  "]) {
      const res = await api.createDevice(alice, "alice", { name, wireguard_pubkey: newKey() });
      expect(res.status).toBe(409);
      expect(res.json.msg).toBe("Device with this name already exists");
    }
    expect(await counts()).toEqual(before);
    const other = await api.createDevice(bob, "bob", { name: "phone", wireguard_pubkey: newKey() });
    expect(other.status, other.text).toBe(201);
  });

  it.each([
    ["too short", "abc"],
    ["43 characters without padding", "A".repeat(43)],
    ["a non-canonical last symbol", `${"A".repeat(42)}B=`],
    ["an empty string", ""],
    ["a number", 42],
    ["hex", "a".repeat(64)],
    ["binary", "\u0000".repeat(44)],
    ["the all-zero key", `${"A".repeat(43)}=`],
  ])("a bad key (%s) → 400 'key is invalid' on wireguard_pubkey, nothing written", async (_label, key) => {
    const before = await counts();
    const res = await api.createDevice(alice, "alice", { name: uniq("bad"), wireguard_pubkey: key });
    expect(res.status).toBe(400);
    expect(res.json.field).toBe("wireguard_pubkey");
    if (typeof key === "string") expect(res.json.msg).toBe("wireguard_pubkey: key is invalid");
    expect(await counts()).toEqual(before);
  });

  it.each([
    ["no name", (b: Record<string, unknown>): unknown => delete b.name, "name"],
    ["an empty name", (b: Record<string, unknown>): unknown => (b.name = "  "), "name"],
    ["a 65-character name", (b: Record<string, unknown>): unknown => (b.name = "x".repeat(65)), "name"],
    ["a 1 MB name", (b: Record<string, unknown>): unknown => (b.name = "x".repeat(1_000_000)), "name"],
    ["markup in the name", (b: Record<string, unknown>): unknown => (b.name = "<b>x</b>"), "name"],
    ["a NUL in the name", (b: Record<string, unknown>): unknown => (b.name = "a\u0000b"), "name"],
    ["no key", (b: Record<string, unknown>): unknown => delete b.wireguard_pubkey, "wireguard_pubkey"],
    ["a 1 MB description", (b: Record<string, unknown>): unknown => (b.description = "d".repeat(1_000_000)), "description"],
  ] as const)("bad input (%s) → 400 naming the field, nothing written", async (_label, mutate, field) => {
    const before = await counts();
    const body: Record<string, unknown> = { name: uniq("ok"), wireguard_pubkey: newKey() };
    mutate(body);
    const res = await api.createDevice(alice, "alice", body);
    expect(res.status).toBe(400);
    expect(res.json.field).toBe(field);
    expect(await counts()).toEqual(before);
  });

  it("binary garbage as the body → 400, nothing written", async () => {
    const before = await counts();
    const res = await api.createDevice(alice, "alice", "\u0000\u00ff\u0001garbage");
    expect(res.status).toBe(400);
    expect(await counts()).toEqual(before);
  });

  it("a key already used by any device, or by a location, → 409, nothing written", async () => {
    const key = newKey();
    await mkDevice(alice, "alice", { wireguard_pubkey: key });
    const before = await counts();
    for (const [jar, user] of [
      [alice, "alice"],
      [bob, "bob"],
    ] as const) {
      const res = await api.createDevice(jar, user, { name: uniq("dup"), wireguard_pubkey: key });
      expect(res.status).toBe(409);
      expect(res.json.msg).toBe("key is already in use by another device");
    }
    const asLocation = await api.createDevice(alice, "alice", { name: uniq("dup"), wireguard_pubkey: main.pubkey });
    expect(asLocation.status).toBe(409);
    expect(await counts()).toEqual(before);
  });

  it("a user adds devices for themselves, not for another user (403, nothing written); an admin adds for anyone", async () => {
    const before = await counts();
    const res = await api.createDevice(bob, "alice", { name: uniq("sneaky"), wireguard_pubkey: newKey() });
    expect(res.status).toBe(403);
    expect(await counts()).toEqual(before);
    const byAdmin = await api.createDevice(admin, "bob", { name: uniq("given"), wireguard_pubkey: newKey() });
    expect(byAdmin.status, byAdmin.text).toBe(201);
    expect(byAdmin.json.device.user_id).toBe(bobId);
    expect(configFor(byAdmin.json.configs, main.id)).toBeTruthy();
    const ghost = await api.createDevice(admin, "nobody-here", { name: uniq("x"), wireguard_pubkey: newKey() });
    expect(ghost.status).toBe(404);
    const anon = await api.createDevice({}, "alice", { name: uniq("x"), wireguard_pubkey: newKey() });
    expect(anon.status).toBe(401);
  });
});

// ------------------------------------------------------------------------------ read / change / delete

describe("GET /device, GET/PUT/DELETE /device/{id}", () => {
  let aliceDev: { id: number; name: string; wireguard_pubkey: string };

  beforeAll(async () => {
    aliceDev = (await mkDevice(alice, "alice", { name: "desk" })).device;
  });

  it("GET /device (admin): every user device in id order, network devices left out; others 403", async () => {
    const nd = await api.createNetworkDevice(admin, { name: uniq("nd"), location_id: main.id, assigned_ips: ["10.30.0.250"], wireguard_pubkey: newKey() });
    expect(nd.status, nd.text).toBe(201);
    const res = await api.listDevices(admin);
    expect(res.status).toBe(200);
    const rows = await query<{ id: number }>("select id from devices where device_type = 'user' order by id");
    expect(res.json.map((d: { id: number }) => d.id)).toEqual(rows.map((r) => r.id));
    expect(res.json.find((d: { id: number }) => d.id === aliceDev.id)).toEqual({
      id: aliceDev.id,
      name: "desk",
      wireguard_pubkey: aliceDev.wireguard_pubkey,
      user_id: aliceId,
      created: expect.any(String),
      description: null,
      device_type: "user",
      configured: true,
    });
    expect(res.json.some((d: { id: number }) => d.id === nd.json.device.id)).toBe(false);
    expect((await api.listDevices(alice)).status).toBe(403);
  });

  it("GET /device/{id}: the owner and an admin read it; another user 403; unknown 404; a network device is not a user device", async () => {
    const own = await api.getDevice(alice, aliceDev.id);
    expect(own.status).toBe(200);
    expect(own.json).toMatchObject({ id: aliceDev.id, name: "desk", user_id: aliceId, device_type: "user" });
    expect((await api.getDevice(admin, aliceDev.id)).json).toEqual(own.json);
    const other = await api.getDevice(bob, aliceDev.id);
    expect(other.status).toBe(403);
    expect(other.text).not.toContain(aliceDev.wireguard_pubkey);
    expect((await api.getDevice(alice, 999999)).status).toBe(404);
    expect((await api.getDevice(alice, "x1")).status).toBe(400);
    const [nd] = await query<{ id: number }>("select id from devices where device_type = 'network' limit 1");
    expect((await api.getDevice(admin, nd.id)).status).toBe(404);
  });

  it("PUT /device/{id}: the owner renames and re-keys; addresses stay; another user 403 with nothing changed", async () => {
    const { device } = await mkDevice(alice, "alice", { name: "tablet" });
    const ips = await ipsOf(device.id, main.id);
    const denied = await api.updateDevice(bob, device.id, { name: "mine", wireguard_pubkey: newKey() });
    expect(denied.status).toBe(403);
    expect((await query("select name, wireguard_pubkey from devices where id = $1", [device.id]))[0]).toEqual({
      name: "tablet",
      wireguard_pubkey: device.wireguard_pubkey,
    });
    const key = newKey();
    const res = await api.updateDevice(alice, device.id, { name: "tablet-2", wireguard_pubkey: key, description: "kitchen" });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: device.id, name: "tablet-2", wireguard_pubkey: key, description: "kitchen", user_id: aliceId });
    expect(await ipsOf(device.id, main.id)).toEqual(ips);
    const byAdmin = await api.updateDevice(admin, device.id, { name: "tablet-3", wireguard_pubkey: key });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.json.description).toBeNull();
  });

  it("PUT /device/{id}: its own name and key are fine; another device's name (same owner) or key → 409; bad input 400", async () => {
    const a = (await mkDevice(alice, "alice", { name: "pc-a" })).device;
    const b = (await mkDevice(alice, "alice", { name: "pc-b" })).device;
    const bobs = (await mkDevice(bob, "bob", { name: "pc-c" })).device;
    expect((await api.updateDevice(alice, a.id, { name: "pc-a", wireguard_pubkey: a.wireguard_pubkey })).status).toBe(200);
    const nameClash = await api.updateDevice(alice, a.id, { name: "pc-b", wireguard_pubkey: a.wireguard_pubkey });
    expect(nameClash.status).toBe(409);
    expect(nameClash.json.msg).toBe("Device with this name already exists");
    // A name another user's device has is fine.
    expect((await api.updateDevice(alice, a.id, { name: "pc-c", wireguard_pubkey: a.wireguard_pubkey })).status).toBe(200);
    const keyClash = await api.updateDevice(alice, a.id, { name: "pc-a", wireguard_pubkey: bobs.wireguard_pubkey });
    expect(keyClash.status).toBe(409);
    const bad = await api.updateDevice(alice, b.id, { name: "pc-b", wireguard_pubkey: "nope" });
    expect(bad.status).toBe(400);
    expect(bad.json.msg).toBe("wireguard_pubkey: key is invalid");
    expect((await query("select name, wireguard_pubkey from devices where id = $1", [b.id]))[0]).toEqual({
      name: "pc-b",
      wireguard_pubkey: b.wireguard_pubkey,
    });
    expect((await api.updateDevice(alice, 999999, { name: "x", wireguard_pubkey: newKey() })).status).toBe(404);
  });

  it("DELETE /device/{id}: another user 403; the owner deletes it with its addresses, which are handed out again", async () => {
    const { device } = await mkDevice(alice, "alice", { name: "old" });
    const ips = await ipsOf(device.id, main.id);
    const before = await counts();
    expect((await api.deleteDevice(bob, device.id)).status).toBe(403);
    expect(await counts()).toEqual(before);
    const res = await api.deleteDevice(alice, device.id);
    expect(res.status).toBe(200);
    expect(await query("select 1 from devices where id = $1", [device.id])).toHaveLength(0);
    expect(await query("select 1 from device_locations where device_id = $1", [device.id])).toHaveLength(0);
    expect((await api.deleteDevice(alice, device.id)).status).toBe(404);
    const next = await mkDevice(bob, "bob");
    expect(configFor(next.configs, main.id).address).toEqual(ips);
  });

  it("an admin may delete anyone's device", async () => {
    const { device } = await mkDevice(bob, "bob");
    expect((await api.deleteDevice(admin, device.id)).status).toBe(200);
    expect(await query("select 1 from devices where id = $1", [device.id])).toHaveLength(0);
  });
});

// ------------------------------------------------------------------------------ UserDevice + config download

describe("GET /device/user/{username} and the config download", () => {
  it("UserDevice: the device with networks[] holding the per-location addresses", async () => {
    await createUser({ username: "ud-user", groups: ["ud-g"] });
    const ud = await signIn("ud-user");
    const extra = await mkLocation(admin, { name: "Annex", address: "10.34.0.5/24", allowed_groups: ["ud-g"] });
    const { device } = await mkDevice(ud, "ud-user", { name: "ud-laptop" });
    const res = await api.userDevices(ud, "ud-user");
    expect(res.status).toBe(200);
    expect(res.json).toEqual([
      {
        id: device.id,
        name: "ud-laptop",
        wireguard_pubkey: device.wireguard_pubkey,
        user_id: device.user_id,
        created: expect.any(String),
        description: null,
        device_type: "user",
        configured: true,
        networks: [
          {
            network_id: extra.id,
            network_name: "Annex",
            network_gateway_ip: "10.34.0.5",
            device_wireguard_ips: ["10.34.0.1"],
            last_connected_ip: null,
            last_connected_location: null,
            last_connected_at: null,
            is_active: false,
          },
          {
            network_id: main.id,
            network_name: "Main",
            network_gateway_ip: "10.30.0.1",
            device_wireguard_ips: await ipsOf(device.id, main.id),
            last_connected_ip: null,
            last_connected_location: null,
            last_connected_at: null,
            is_active: false,
          },
        ],
      },
    ]);
    expect((await api.userDevices(admin, "ud-user")).json).toEqual(res.json);
    expect((await api.userDevices(bob, "ud-user")).status).toBe(403);
    expect((await api.userDevices(admin, "no-such-user")).status).toBe(404);
    await api.deleteLocation(admin, extra.id);
  });

  it("GET /network/{id}/device/{deviceId}/config: text/plain attachment equal to the creation config; owner or admin only", async () => {
    const created = await mkDevice(alice, "alice", { name: "dl laptop" });
    const res = await api.deviceConfig(alice, main.id, created.device.id);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="Main-dl_laptop.conf"');
    expect(res.text).toBe(configFor(created.configs, main.id).config);
    expect((await api.deviceConfig(admin, main.id, created.device.id)).text).toBe(res.text);
    const denied = await api.deviceConfig(bob, main.id, created.device.id);
    expect(denied.status).toBe(403);
    expect(denied.text).not.toContain("[Interface]");
    expect((await api.deviceConfig(alice, 999999, created.device.id)).status).toBe(404);
    expect((await api.deviceConfig(alice, main.id, 999999)).status).toBe(404);
    expect((await api.deviceConfig(alice, main.id, "abc")).json.field).toBe("deviceId");
  });
});

// ------------------------------------------------------------------------------ desiredPeers

describe("desiredPeers (what a gateway gets)", () => {
  it("active users' devices and network devices are peers, disabled users' devices are not; routes are /32 and /128", async () => {
    await createUser({ username: "peer-on", groups: ["peer-g"] });
    await createUser({ username: "peer-off", groups: ["peer-g"] });
    const l = await mkLocation(admin, { address: "10.35.0.1/24, fd35::1/64", allowed_groups: ["peer-g"], keepalive_interval: 17 });
    const on = (await mkDevice(admin, "peer-on")).device;
    const off = (await mkDevice(admin, "peer-off")).device;
    const nd = await api.createNetworkDevice(admin, { name: uniq("gw-nd"), location_id: l.id, assigned_ips: ["10.35.0.77"], wireguard_pubkey: newKey() });
    expect(nd.status, nd.text).toBe(201);
    await query("update users set is_active = false where username = 'peer-off'");

    const peers = await desiredPeers(l.id);
    expect(peers).toEqual([
      { pubkey: on.wireguard_pubkey, allowed_ips: ["10.35.0.2/32", "fd35::2/128"], keepalive_interval: 17 },
      { pubkey: nd.json.device.wireguard_pubkey, allowed_ips: ["10.35.0.77/32"], keepalive_interval: 17 },
    ]);
    expect(peers.some((p) => p.pubkey === off.wireguard_pubkey)).toBe(false);
    // Enabled again → a peer again.
    await query("update users set is_active = true where username = 'peer-off'");
    expect((await desiredPeers(l.id)).map((p) => p.pubkey)).toContain(off.wireguard_pubkey);
    await api.deleteLocation(admin, l.id);
  });

  it("internal location MFA: only authorised devices with a preshared key, carrying it; network devices stay peers (without one)", async () => {
    await createUser({ username: "mfa-u", groups: ["mfa-g"] });
    const l = await mkLocation(admin, { address: "10.36.0.1/24", allowed_groups: ["mfa-g"] });
    const nd = await api.createNetworkDevice(admin, { name: uniq("mfa-nd"), location_id: l.id, assigned_ips: ["10.36.0.99"], wireguard_pubkey: newKey() });
    expect(nd.status, nd.text).toBe(201);
    const res = await api.updateLocation(admin, l.id, {
      name: l.name,
      address: "10.36.0.1/24",
      endpoint: "vpn.example.com",
      port: 51820,
      allowed_groups: ["mfa-g"],
      location_mfa_mode: "internal",
    });
    expect(res.status, res.text).toBe(200);
    const [x, y, z, w] = [
      (await mkDevice(admin, "mfa-u")).device,
      (await mkDevice(admin, "mfa-u")).device,
      (await mkDevice(admin, "mfa-u")).device,
      (await mkDevice(admin, "mfa-u")).device,
    ];
    const psk = generateKeyPair().privateKey;
    const set = (d: number, authorized: boolean, key: string | null) =>
      query("update device_locations set is_authorized = $1, preshared_key = $2 where device_id = $3 and location_id = $4", [
        authorized,
        key,
        d,
        l.id,
      ]);
    // The session PSK is stored encrypted (lib/clientmfa); the gateway gets it in clear.
    await set(x.id, true, encryptSecret(psk));
    await set(y.id, true, null);
    await set(z.id, false, encryptSecret(psk));
    await set(w.id, false, null);
    const peers = await desiredPeers(l.id);
    expect(peers).toEqual([
      { pubkey: nd.json.device.wireguard_pubkey, allowed_ips: ["10.36.0.99/32"], keepalive_interval: 25 },
      { pubkey: x.wireguard_pubkey, allowed_ips: [`${(await ipsOf(x.id, l.id))![0]}/32`], keepalive_interval: 25, preshared_key: psk },
    ]);
    // Back to no MFA: every device is a peer, without preshared keys.
    const back = await api.updateLocation(admin, l.id, {
      name: l.name,
      address: "10.36.0.1/24",
      endpoint: "vpn.example.com",
      port: 51820,
      allowed_groups: ["mfa-g"],
      location_mfa_mode: "disabled",
    });
    expect(back.status).toBe(200);
    const open = await desiredPeers(l.id);
    expect(open.map((p) => p.pubkey).sort()).toEqual([nd.json.device.wireguard_pubkey, x.wireguard_pubkey, y.wireguard_pubkey, z.wireguard_pubkey, w.wireguard_pubkey].sort());
    expect(open.every((p) => p.preshared_key === undefined)).toBe(true);
    await api.deleteLocation(admin, l.id);
  });

  it("devices outside the allowed groups are not peers", async () => {
    await createUser({ username: "np-in", groups: ["np-g"] });
    await createUser({ username: "np-out" });
    const l = await mkLocation(admin, { address: "10.37.0.1/24", allowed_groups: ["np-g"] });
    const inside = (await mkDevice(admin, "np-in")).device;
    const outside = (await mkDevice(admin, "np-out")).device;
    const keys = (await desiredPeers(l.id)).map((p) => p.pubkey);
    expect(keys).toEqual([inside.wireguard_pubkey]);
    expect(keys).not.toContain(outside.wireguard_pubkey);
    await api.deleteLocation(admin, l.id);
  });
});

describe("GET /device built by PostgreSQL", () => {
  it("answers exactly what the single read gives for every user device", async () => {
    const { listDevicesJson, deviceById } = await import("@/lib/devices/service");
    const { getDb } = await import("@/lib/db");
    const { devices } = await import("@/lib/db/schema");
    const { asc, eq } = await import("drizzle-orm");
    const rows = await getDb().select().from(devices).where(eq(devices.deviceType, "user")).orderBy(asc(devices.id));
    const fromSql = JSON.parse((await listDevicesJson()).toString("utf8"));
    expect(fromSql.length).toBeGreaterThan(0);
    expect(fromSql).toEqual(await Promise.all(rows.map((r) => deviceById(getDb(), r.id))));
  });

  it("the cached body follows changes made outside this process", async () => {
    const { listDevicesJson } = await import("@/lib/devices/service");
    const names = async () => (JSON.parse((await listDevicesJson()).toString("utf8")) as { id: number; name: string }[]).map((d) => d.name);
    const before = await names();
    expect(await names()).toEqual(before); // served from the cache
    const [{ id }] = await query<{ id: number }>("select id from devices where device_type = 'user' order by id limit 1");
    await query("update devices set name = 'renamed-by-sql' where id = $1", [id]);
    expect(await names()).toContain("renamed-by-sql");
    await query("delete from devices where id = $1", [id]);
    expect(await names()).not.toContain("renamed-by-sql");
    expect((await names()).length).toBe(before.length - 1);
  });
});
