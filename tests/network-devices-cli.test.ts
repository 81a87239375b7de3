/**
 * Network devices configured with the defguard CLI (`dg`), through the real route handlers on a
 * real database: POST /device/network/start_cli (an unconfigured device and a token stored only
 * hashed), POST /device/network/start_cli/{id}, and the two endpoints `dg` calls —
 * POST /enrollment/start (session cookie) and POST /enrollment/create_device (key → configured
 * device, single-use token, DeviceConfigResponse). Gateways never see an unconfigured device and
 * get the peer once the CLI has sent its key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as startCliPost } from "@/app/api/v1/device/network/start_cli/route";
import { POST as startCliForDevicePost } from "@/app/api/v1/device/network/start_cli/[id]/route";
import { POST as enrollmentStartPost } from "@/app/api/v1/enrollment/start/route";
import { POST as enrollmentCreateDevicePost } from "@/app/api/v1/enrollment/create_device/route";
import { publicUrl } from "@/lib/config";
import { sha256hex } from "@/lib/crypto";
import { subscribe as onDomainEvent, type DomainEvent } from "@/lib/events";
import { handleEvents, subscribe as subscribeGateway, type WireUpdate } from "@/lib/gateways/hub";
import { desiredPeers, gatewayConfiguration } from "@/lib/gateways/service";
import { instanceId, pruneEnrollmentTokens, signEnrollmentSession } from "@/lib/enrollment/service";
import { parseConfig } from "@/lib/wireguard/config";
import { call, createUser, query, signIn, type Jar } from "./helpers";
import { api, counts, mkDevice, mkLocation, newKey, uniq } from "./wireguard-fixtures";

const p = (path: string) => `/api/v1${path}`;
const cli = {
  start: (jar: Jar, body: unknown) => call(startCliPost, { method: "POST", path: p("/device/network/start_cli"), jar, body }),
  startFor: (jar: Jar, id: number | string) =>
    call(startCliForDevicePost, { method: "POST", path: p(`/device/network/start_cli/${id}`), jar, params: { id: String(id) } }),
  enrollStart: (body: unknown, cookies: Jar = {}) => call(enrollmentStartPost, { method: "POST", path: p("/enrollment/start"), body, cookies }),
  createDevice: (body: unknown, cookies: Jar = {}) =>
    call(enrollmentCreateDevicePost, { method: "POST", path: p("/enrollment/create_device"), body, cookies }),
};

let admin: Jar;
let alice: Jar;
let rootId: number;
let office: { id: number; name: string; pubkey: string };
let aliceKey: string;

/** Domain events published after commit, in order. */
const events: DomainEvent[] = [];
const stopEvents = onDomainEvent((e) => void events.push(e));
afterAll(() => stopEvents());
/** Let the after-commit dispatch (a microtask per handler) run. */
const settle = () => new Promise((r) => setTimeout(r, 20));

beforeAll(async () => {
  rootId = (await createUser({ username: "root", isAdmin: true, firstName: "Rob", lastName: "Root" })).id;
  await createUser({ username: "alice", groups: ["office-g"] });
  admin = await signIn("root");
  alice = await signIn("alice");
  office = await mkLocation(admin, {
    name: "Office",
    address: "10.60.0.1/24, fd60::1/64",
    allowed_groups: ["office-g"],
    dns: "10.60.0.1",
    allowed_ips: "10.60.0.0/24, 192.168.5.0/24",
    keepalive_interval: 30,
  });
  aliceKey = (await mkDevice(alice, "alice")).device.wireguard_pubkey; // 10.60.0.2, fd60::2
});

const body = (over: Record<string, unknown> = {}) => ({
  name: uniq("cli"),
  description: "rack 7",
  location_id: office.id,
  assigned_ips: ["10.60.0.100"],
  ...over,
});

async function tokenCount() {
  const [r] = await query<{ n: number }>("select count(*)::int n from enrollment_tokens");
  return r.n;
}

/** start_cli with the next free addresses; returns the token and the new device's id. */
async function startCli(over: Record<string, unknown> = {}) {
  const next = ((await api.nextIp(admin, office.id)).json as { ip: string }[]).map((a) => a.ip);
  const res = await cli.start(admin, body({ assigned_ips: next, ...over }));
  expect(res.status, res.text).toBe(201);
  const [row] = await query<{ device_id: number }>("select device_id from enrollment_tokens where token_hash = $1", [sha256hex(res.json.enrollment_token)]);
  return { token: res.json.enrollment_token as string, deviceId: row.device_id, ips: next };
}

/** The `defguard_proxy` session cookie of a successful /enrollment/start. */
async function sessionFor(token: string): Promise<Jar> {
  const res = await cli.enrollStart({ token });
  expect(res.status, res.text).toBe(200);
  return { defguard_proxy: res.cookies.defguard_proxy.value };
}

describe("POST /device/network/start_cli", () => {
  it("201 {enrollment_token, enrollment_url}: an unconfigured device with its addresses, the token stored only as a hash", async () => {
    const before = await counts();
    const res = await cli.start(admin, body({ name: "edge-router", assigned_ips: ["10.60.0.50", "fd60::50"] }));
    expect(res.status, res.text).toBe(201);
    expect(res.json).toEqual({ enrollment_token: expect.any(String), enrollment_url: publicUrl(), expires_at: expect.any(String) });
    const token: string = res.json.enrollment_token;
    expect(token.length).toBeGreaterThanOrEqual(40);
    // Default lifetime: one day.
    const ttl = Date.parse(res.json.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(86_390_000);
    expect(ttl).toBeLessThanOrEqual(86_400_000);

    // Listed, not configured, no key; its addresses are reserved.
    const list = await api.listNetworkDevices(admin);
    const d = list.json.find((x: { name: string }) => x.name === "edge-router");
    expect(d).toMatchObject({
      configured: false,
      wireguard_pubkey: null,
      assigned_ips: ["10.60.0.50", "fd60::50"],
      location: { id: office.id, name: "Office" },
      added_by: "root",
      description: "rack 7",
    });
    const check = await api.checkIps(admin, office.id, { ips: ["10.60.0.50"] });
    expect(check.json[0]).toEqual({ available: false, valid: true });
    expect(await counts()).toMatchObject({ devices: before.devices + 1, device_locations: before.device_locations + 1, activity: before.activity + 1 });

    // The token row: hash only, tied to the admin and the device.
    const [row] = await query<Record<string, unknown>>("select * from enrollment_tokens where device_id = $1", [d.id]);
    expect(row).toMatchObject({ token_hash: sha256hex(token), kind: "network_device", user_id: rootId, admin_id: rootId, used_at: null });
    expect((row.expires_at as Date).toISOString()).toBe(res.json.expires_at);
    // The raw token is nowhere in the database.
    const tables = await query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'",
    );
    for (const { table_name } of tables) {
      const hits = await query(`select 1 from "${table_name}" t where t::text like $1 limit 1`, [`%${token}%`]);
      expect(hits, `raw token found in ${table_name}`).toHaveLength(0);
    }
    const [log] = await query<{ event: string; device: string; location: string }>(
      "select event, device, location from activity_log order by id desc limit 1",
    );
    expect(log).toEqual({ event: "network_device_added", device: "edge-router", location: "Office" });
  });

  it("DEFGUARD_ENROLLMENT_TOKEN_TIMEOUT sets the lifetime in seconds", async () => {
    process.env.DEFGUARD_ENROLLMENT_TOKEN_TIMEOUT = "600";
    try {
      const res = await cli.start(admin, body({ assigned_ips: ["10.60.0.51"] }));
      expect(res.status, res.text).toBe(201);
      const ttl = Date.parse(res.json.expires_at) - Date.now();
      expect(ttl).toBeGreaterThan(590_000);
      expect(ttl).toBeLessThanOrEqual(600_000);
    } finally {
      delete process.env.DEFGUARD_ENROLLMENT_TOKEN_TIMEOUT;
    }
  });

  it("addresses are checked as for POST /device/network: invalid → 400, in use → 409; bad input → 400; nothing written", async () => {
    const before = { ...(await counts()), tokens: await tokenCount() };
    for (const ip of ["10.99.0.5", "10.60.0.1", "10.60.0.255", "nonsense", "fd61::5"]) {
      const res = await cli.start(admin, body({ assigned_ips: [ip] }));
      expect(res.status, ip).toBe(400);
      expect(res.json.field).toBe("assigned_ips");
      expect(res.json.msg).toContain("IP is invalid");
    }
    const taken = await cli.start(admin, body({ assigned_ips: ["10.60.0.2"] }));
    expect(taken.status).toBe(409);
    expect(taken.json.msg).toContain("IP is already in use");
    for (const [over, field] of [
      [{ assigned_ips: [] }, "assigned_ips"],
      [{ location_id: "abc" }, "location_id"],
      [{ name: "" }, "name"],
      [{ name: "<b>" }, "name"],
    ] as const) {
      const res = await cli.start(admin, body(over));
      expect(res.status).toBe(400);
      expect(res.json.field).toBe(field);
    }
    const name = await cli.start(admin, body({ name: "edge-router", assigned_ips: ["10.60.0.52"] }));
    expect(name.status).toBe(409);
    expect(name.json.msg).toBe("Device with this name already exists");
    expect((await cli.start(admin, body({ location_id: 999999 }))).status).toBe(404);
    expect((await cli.start(alice, body({ assigned_ips: ["10.60.0.53"] }))).status).toBe(403);
    expect({ ...(await counts()), tokens: await tokenCount() }).toEqual(before);
  });

  it("only locations without MFA (400 'network devices can only be added to locations without MFA')", async () => {
    const l = await mkLocation(admin, { address: "10.61.0.1/24", location_mfa_mode: "internal" });
    const before = { ...(await counts()), tokens: await tokenCount() };
    const res = await cli.start(admin, body({ location_id: l.id, assigned_ips: ["10.61.0.10"] }));
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ field: "location_id", msg: expect.stringContaining("network devices can only be added to locations without MFA") });
    expect({ ...(await counts()), tokens: await tokenCount() }).toEqual(before);
    await api.deleteLocation(admin, l.id);
  });
});

describe("POST /device/network/start_cli/{id}", () => {
  it("a new token for a device still waiting; the earlier token stops working", async () => {
    const first = await startCli();
    const res = await cli.startFor(admin, first.deviceId);
    expect(res.status, res.text).toBe(201);
    expect(res.json).toEqual({ enrollment_token: expect.any(String), enrollment_url: publicUrl(), expires_at: expect.any(String) });
    expect(res.json.enrollment_token).not.toBe(first.token);
    const old = await cli.enrollStart({ token: first.token });
    expect(old.status).toBe(401);
    expect(old.json.msg).toBe("invalid token");
    expect((await cli.enrollStart({ token: res.json.enrollment_token })).status).toBe(200);
    const [log] = await query<{ event: string }>("select event from activity_log order by id desc limit 1");
    expect(log.event).toBe("enrollment_token_added");
  });

  it("400 {msg} for a user device, an unknown id or a configured device; 403 for non-admins", async () => {
    const [userDevice] = await query<{ id: number }>("select id from devices where wireguard_pubkey = $1", [aliceKey]);
    const before = await tokenCount();
    const user = await cli.startFor(admin, userDevice.id);
    expect(user.status).toBe(400);
    expect(user.json.msg).toBe("device is not a network device");
    const missing = await cli.startFor(admin, 999999);
    expect(missing.status).toBe(404);
    expect(missing.json.msg).toBe("network device not found");
    const configured = await api.createNetworkDevice(admin, { ...body({ assigned_ips: ["10.60.0.60"] }), wireguard_pubkey: newKey() });
    expect(configured.status, configured.text).toBe(201);
    const refused = await cli.startFor(admin, configured.json.device.id);
    expect(refused.status).toBe(400);
    expect(refused.json.msg).toBe("network device is already configured");
    expect((await cli.startFor(admin, "abc")).status).toBe(400);
    const waiting = await startCli();
    expect((await cli.startFor(alice, waiting.deviceId)).status).toBe(403);
    expect(await tokenCount()).toBe(before + 1);
  });
});

describe("POST /enrollment/start", () => {
  it("200 EnrollmentStartResponse and an HttpOnly defguard_proxy session cookie that holds no token", async () => {
    const { token } = await startCli();
    const res = await cli.enrollStart({ token });
    expect(res.status, res.text).toBe(200);
    const [t] = await query<{ expires_at: Date }>("select expires_at from enrollment_tokens where token_hash = $1", [sha256hex(token)]);
    expect(res.json).toEqual({
      admin: { name: "Rob Root", email: "root@example.com" },
      user: {
        first_name: "Rob",
        last_name: "Root",
        login: "root",
        email: "root@example.com",
        is_active: true,
        device_names: [],
        enrolled: true,
        is_admin: true,
      },
      deadline_timestamp: Math.floor(t.expires_at.getTime() / 1000),
      final_page_content: "",
      instance: {
        id: instanceId(),
        name: "Defguard",
        url: publicUrl(),
        proxy_url: publicUrl(),
        username: "root",
        enterprise_enabled: true,
        disable_all_traffic: false,
        client_traffic_policy: 0,
      },
      settings: { vpn_setup_optional: true, only_client_activation: false, admin_device_management: false, smtp_configured: false, mfa_required: false },
    });
    expect(instanceId()).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const cookie = res.cookies.defguard_proxy;
    expect(cookie).toMatchObject({ httpOnly: true, path: "/api/v1/enrollment", sameSite: "Lax" });
    expect(cookie.maxAge).toBeGreaterThan(86_000);
    expect(cookie.value).not.toContain(token);
    // Starting does not spend the token.
    expect((await cli.enrollStart({ token })).status).toBe(200);
  });

  it("401 {msg, error} for an unknown, expired or used token; 400 without one", async () => {
    const unknown = await cli.enrollStart({ token: "no-such-token" });
    expect(unknown.status).toBe(401);
    expect(unknown.json).toEqual({ msg: "invalid token", error: "invalid token" });
    expect(unknown.cookies.defguard_proxy).toBeUndefined();

    const { token } = await startCli();
    await query("update enrollment_tokens set expires_at = now() - interval '1 second' where token_hash = $1", [sha256hex(token)]);
    const expired = await cli.enrollStart({ token });
    expect(expired.status).toBe(401);
    expect(expired.json.msg).toBe("token expired");

    const used = await startCli();
    await query("update enrollment_tokens set used_at = now() where token_hash = $1", [sha256hex(used.token)]);
    const spent = await cli.enrollStart({ token: used.token });
    expect(spent.status).toBe(401);
    expect(spent.json.msg).toBe("token already used");

    for (const b of [{}, { token: "" }, { token: 5 }]) {
      const res = await cli.enrollStart(b);
      expect(res.status).toBe(400);
      expect(res.json.field).toBe("token");
    }
  });
});

describe("POST /enrollment/create_device", () => {
  it("the CLI's key configures the device: 200 DeviceConfigResponse, token spent, gateways get the peer", async () => {
    const { token, deviceId, ips } = await startCli({ name: "nas" });
    const jar = await sessionFor(token);
    const before = await counts();

    // Not a peer while it waits.
    expect((await gatewayConfiguration(office.id)).peers.some((p) => p.pubkey === null || p.pubkey === undefined)).toBe(false);
    expect((await desiredPeers(office.id)).map((p) => p.allowed_ips[0])).not.toContain(`${ips[0]}/32`);

    // A gateway stream of this process for the location.
    const updates: WireUpdate[] = [];
    const stopGateway = subscribeGateway({ locationId: office.id, write: (u) => void updates.push(u), end: () => {} });
    events.length = 0;

    const key = newKey();
    const res = await cli.createDevice({ name: "", pubkey: key, token: null }, jar);
    expect(res.status, res.text).toBe(200);
    const [d] = await query<{ created_at: Date; user_id: number }>("select created_at, user_id from devices where id = $1", [deviceId]);
    expect(res.json).toEqual({
      device: { id: deviceId, name: "nas", pubkey: key, user_id: rootId, created_at: Math.floor(d.created_at.getTime() / 1000) },
      configs: [
        {
          network_id: office.id,
          network_name: "Office",
          config: expect.any(String),
          endpoint: "vpn.example.com:51820",
          assigned_ip: ips.join(","),
          pubkey: office.pubkey,
          allowed_ips: "10.60.0.0/24,192.168.5.0/24",
          dns: "10.60.0.1",
          mfa_enabled: false,
          keepalive_interval: 30,
          location_mfa_mode: 1,
        },
      ],
      instance: expect.objectContaining({ id: instanceId(), username: "root", url: publicUrl(), proxy_url: publicUrl() }),
    });
    const conf = parseConfig(res.json.configs[0].config);
    expect(conf.interface).toMatchObject({ privateKey: null, addresses: ips, dns: ["10.60.0.1"] });
    expect(conf.peers[0]).toMatchObject({ publicKey: office.pubkey, allowedIps: ["10.60.0.0/24", "192.168.5.0/24"] });
    // The session cookie is cleared.
    expect(res.cookies.defguard_proxy.maxAge).toBe(0);

    // Configured with the key; token spent; activity recorded.
    const dev = (await api.getNetworkDevice(admin, deviceId)).json;
    expect(dev).toMatchObject({ configured: true, wireguard_pubkey: key, assigned_ips: ips });
    const [t] = await query<{ used_at: Date | null }>("select used_at from enrollment_tokens where token_hash = $1", [sha256hex(token)]);
    expect(t.used_at).toBeInstanceOf(Date);
    const [log] = await query<Record<string, unknown>>("select event, module, username, device, location, ip from activity_log order by id desc limit 1");
    expect(log).toEqual({ event: "network_device_configured", module: "enrollment", username: "root", device: "nas", location: "Office", ip: "127.0.0.1" });
    expect(await counts()).toMatchObject({ devices: before.devices, activity: before.activity + 1 });

    // Now a peer of the location, announced after commit and turned into a CREATE.
    const peer = (await gatewayConfiguration(office.id)).peers.find((p) => p.pubkey === key);
    expect(peer).toEqual({ pubkey: key, allowed_ips: [`${ips[0]}/32`, `${ips[1]}/128`], keepalive_interval: 30 });
    await settle();
    expect(events).toContainEqual({ type: "device.location.added", deviceId, locationId: office.id });
    await handleEvents(events.filter((e) => "deviceId" in e && e.deviceId === deviceId));
    stopGateway();
    expect(updates).toEqual([{ update_type: "CREATE", peer }]);

    // Single use: the same session or token again is refused, nothing changes.
    const again = await cli.createDevice({ name: "", pubkey: newKey() }, jar);
    expect(again.status).toBe(401);
    expect(again.json).toEqual({ msg: "token already used", error: "token already used" });
    expect((await cli.createDevice({ name: "", pubkey: newKey(), token })).status).toBe(401);
    expect((await cli.enrollStart({ token })).json.msg).toBe("token already used");
    expect((await api.getNetworkDevice(admin, deviceId)).json.wireguard_pubkey).toBe(key);
  });

  it("two CLIs racing with one token: exactly one wins", async () => {
    const { token, deviceId } = await startCli();
    const results = await Promise.all([0, 1, 2].map(() => cli.createDevice({ name: "", pubkey: newKey(), token })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401]);
    const winner = results.find((r) => r.status === 200)!;
    const [row] = await query<{ wireguard_pubkey: string }>("select wireguard_pubkey from devices where id = $1", [deviceId]);
    expect(row.wireguard_pubkey).toBe(winner.json.device.pubkey);
  });

  it("the token may come in the body instead of the session cookie", async () => {
    const { token, deviceId } = await startCli();
    const key = newKey();
    const res = await cli.createDevice({ name: "ignored", pubkey: key, token });
    expect(res.status, res.text).toBe(200);
    expect(res.json.device).toMatchObject({ id: deviceId, pubkey: key });
    expect(res.json.device.name).not.toBe("ignored");
  });

  it("a bad key → 400 'key is invalid'; a key in use (device or location) → 409; nothing changes and the token still works", async () => {
    const { token, deviceId } = await startCli();
    const jar = await sessionFor(token);
    for (const pubkey of ["bad", "", "A".repeat(44)]) {
      const res = await cli.createDevice({ name: "", pubkey }, jar);
      expect(res.status, pubkey).toBe(400);
      expect(res.json).toMatchObject({ field: "pubkey", msg: "pubkey: key is invalid" });
    }
    for (const pubkey of [aliceKey, office.pubkey]) {
      const res = await cli.createDevice({ name: "", pubkey }, jar);
      expect(res.status).toBe(409);
      expect(res.json).toMatchObject({ msg: "key is already in use by another device", error: "key is already in use by another device" });
    }
    const [row] = await query<{ configured: boolean; wireguard_pubkey: string | null }>("select configured, wireguard_pubkey from devices where id = $1", [deviceId]);
    expect(row).toEqual({ configured: false, wireguard_pubkey: null });
    const [t] = await query<{ used_at: Date | null }>("select used_at from enrollment_tokens where token_hash = $1", [sha256hex(token)]);
    expect(t.used_at).toBeNull();
    expect((await cli.createDevice({ name: "", pubkey: newKey() }, jar)).status).toBe(200);
  });

  it("401 without a session, with a forged or expired session cookie, or with an expired token", async () => {
    const none = await cli.createDevice({ name: "", pubkey: newKey() });
    expect(none.status).toBe(401);
    expect(none.json.msg).toContain("no enrollment session");

    const { token, deviceId } = await startCli();
    const real = (await sessionFor(token)).defguard_proxy;
    const [hash, exp] = real.split(".");
    const forged = `${hash}.${Number(exp) + 1000}.${real.split(".")[2]}`;
    expect((await cli.createDevice({ name: "", pubkey: newKey() }, { defguard_proxy: forged })).status).toBe(401);
    expect((await cli.createDevice({ name: "", pubkey: newKey() }, { defguard_proxy: "garbage" })).status).toBe(401);
    const stale = signEnrollmentSession(hash, new Date(Date.now() - 1000)).value;
    expect((await cli.createDevice({ name: "", pubkey: newKey() }, { defguard_proxy: stale })).status).toBe(401);

    await query("update enrollment_tokens set expires_at = now() - interval '1 second' where device_id = $1", [deviceId]);
    const expired = await cli.createDevice({ name: "", pubkey: newKey() }, { defguard_proxy: real });
    expect(expired.status).toBe(401);
    expect(expired.json.msg).toBe("token expired");
    const [row] = await query<{ configured: boolean }>("select configured from devices where id = $1", [deviceId]);
    expect(row.configured).toBe(false);
  });
});

describe("unconfigured devices elsewhere", () => {
  it("are never gateway peers; deleting one sends no peer deletion", async () => {
    const { deviceId, ips } = await startCli();
    const config = await gatewayConfiguration(office.id);
    expect(config.peers.every((p) => typeof p.pubkey === "string" && p.pubkey.length === 44)).toBe(true);
    expect(config.peers.flatMap((p) => p.allowed_ips)).not.toContain(`${ips[0]}/32`);

    const updates: WireUpdate[] = [];
    const stopGateway = subscribeGateway({ locationId: office.id, write: (u) => void updates.push(u), end: () => {} });
    events.length = 0;
    expect((await api.deleteNetworkDevice(admin, deviceId)).status).toBe(200);
    await settle();
    expect(events).toContainEqual({ type: "device.deleted", deviceId, pubkey: null, locationIds: [office.id] });
    await handleEvents(events);
    stopGateway();
    expect(updates).toEqual([]);
    // Its tokens went with it.
    expect(await query("select 1 from enrollment_tokens where device_id = $1", [deviceId])).toHaveLength(0);
  });

  it("PUT without a key keeps the device waiting; with a key it is configured, its tokens void, and gateways get a CREATE", async () => {
    const { token, deviceId, ips } = await startCli({ name: "cam" });
    const keep = await api.updateNetworkDevice(admin, deviceId, { name: "cam-2", location_id: office.id, assigned_ips: ips });
    expect(keep.status, keep.text).toBe(200);
    expect(keep.json).toMatchObject({ name: "cam-2", configured: false, wireguard_pubkey: null });
    expect((await cli.enrollStart({ token })).status).toBe(200);

    const updates: WireUpdate[] = [];
    const stopGateway = subscribeGateway({ locationId: office.id, write: (u) => void updates.push(u), end: () => {} });
    events.length = 0;
    const key = newKey();
    const set = await api.updateNetworkDevice(admin, deviceId, { name: "cam-2", location_id: office.id, assigned_ips: ips, wireguard_pubkey: key });
    expect(set.status, set.text).toBe(200);
    expect(set.json).toMatchObject({ configured: true, wireguard_pubkey: key });
    await settle();
    await handleEvents(events);
    stopGateway();
    expect(updates).toEqual([{ update_type: "CREATE", peer: expect.objectContaining({ pubkey: key }) }]);
    expect((await cli.enrollStart({ token })).json.msg).toBe("invalid token");
    expect((await cli.startFor(admin, deviceId)).status).toBe(400);

    // A configured device keeps its key when PUT sends none.
    const again = await api.updateNetworkDevice(admin, deviceId, { name: "cam-3", location_id: office.id, assigned_ips: ips });
    expect(again.json).toMatchObject({ name: "cam-3", configured: true, wireguard_pubkey: key });
  });
});

describe("token retention", () => {
  it("drops tokens expired or used more than a day ago, keeps the rest", async () => {
    const mk = async (name: string, ip: string) => {
      const res = await cli.start(admin, body({ name, assigned_ips: [ip] }));
      expect(res.status, res.text).toBe(201);
      return res.json.enrollment_token as string;
    };
    const live = await mk("keep-live", "10.60.0.221");
    const oldExpired = await mk("old-expired", "10.60.0.222");
    const oldUsed = await mk("old-used", "10.60.0.223");
    const recentUsed = await mk("recent-used", "10.60.0.224");
    await query("update enrollment_tokens set expires_at = now() - interval '25 hours' where token_hash = $1", [sha256hex(oldExpired)]);
    await query("update enrollment_tokens set used_at = now() - interval '25 hours' where token_hash = $1", [sha256hex(oldUsed)]);
    await query("update enrollment_tokens set used_at = now() - interval '1 hour' where token_hash = $1", [sha256hex(recentUsed)]);
    expect(await pruneEnrollmentTokens()).toBe(2);
    const left = (await query<{ token_hash: string }>("select token_hash from enrollment_tokens")).map((r) => r.token_hash);
    expect(left).toEqual(expect.arrayContaining([sha256hex(live), sha256hex(recentUsed)]));
    expect(left).not.toContain(sha256hex(oldExpired));
    expect(left).not.toContain(sha256hex(oldUsed));
  });
});

