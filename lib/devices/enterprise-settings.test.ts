/**
 * Enterprise settings (GET/PATCH /settings_enterprise) enforced by the device API:
 * admin_device_management (only admins add, change or delete devices), only_client_activation
 * (no manual device add/change or config download for users), client_traffic_policy (AllowedIPs
 * of every generated client config).
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { GET as enterpriseGet, PATCH as enterprisePatch } from "@/app/api/v1/settings_enterprise/route";
import { GET as licenseGet } from "@/app/api/v1/license/route";
import { call, createUser, query, setLicence, signIn, testLicence, type Jar } from "@/tests/helpers";
import { api, mkLocation, newKey } from "@/tests/wireguard-fixtures";

let admin: Jar;
let user: Jar;
let locationId: number;

async function setEnterprise(body: Record<string, unknown>) {
  const res = await call(enterprisePatch, { method: "PATCH", path: "/api/v1/settings_enterprise", jar: admin, body });
  expect(res.status, res.text).toBe(200);
  return res.json;
}

const deviceCount = async () => (await query<{ n: number }>("select count(*)::int n from devices"))[0].n;

beforeAll(async () => {
  await createUser({ username: "ent-admin", isAdmin: true });
  await createUser({ username: "ent-user" });
  admin = await signIn("ent-admin");
  user = await signIn("ent-user");
  const loc = await mkLocation(admin, { address: "198.51.100.1/24", allowed_ips: "203.0.113.0/24" });
  locationId = loc.id;
});

afterEach(async () => {
  await query("update settings set admin_device_management = false, only_client_activation = false, client_traffic_policy = 'none' where id = 1");
});

describe("GET/PATCH /settings_enterprise", () => {
  it("every user reads them; a patch changes only what it names and is logged", async () => {
    const res = await call(enterpriseGet, { jar: user });
    expect(res.json).toEqual({ admin_device_management: false, client_traffic_policy: "none", only_client_activation: false });
    expect(await setEnterprise({ only_client_activation: true })).toEqual({
      admin_device_management: false,
      client_traffic_policy: "none",
      only_client_activation: true,
    });
    const [log] = await query<{ description: string }>("select description from activity_log where event = 'settings_updated_partial' order by id desc limit 1");
    expect(log.description).toContain("only_client_activation");
  });

  it.each([
    [{ client_traffic_policy: "all" }, "client_traffic_policy"],
    [{ admin_device_management: "yes" }, "admin_device_management"],
    [{ only_client_activation: 1 }, "only_client_activation"],
  ])("bad input %j: 400 naming the field, nothing changes", async (body, field) => {
    const res = await call(enterprisePatch, { method: "PATCH", path: "/api/v1/settings_enterprise", jar: admin, body });
    expect(res.status).toBe(400);
    expect(res.json.field).toBe(field);
    expect((await call(enterpriseGet, { jar: admin })).json).toEqual({ admin_device_management: false, client_traffic_policy: "none", only_client_activation: false });
  });

  it("a user may not change them (403)", async () => {
    const res = await call(enterprisePatch, { method: "PATCH", path: "/api/v1/settings_enterprise", jar: user, body: { admin_device_management: true } });
    expect(res.status).toBe(403);
    expect((await call(enterpriseGet, { jar: admin })).json.admin_device_management).toBe(false);
  });
});

describe("admin_device_management", () => {
  it("users may not add, change or delete their devices; admins may", async () => {
    const own = await api.createDevice(user, "ent-user", { name: "before", wireguard_pubkey: newKey() });
    expect(own.status, own.text).toBe(201);
    const id = own.json.device.id as number;
    await setEnterprise({ admin_device_management: true });

    const before = await deviceCount();
    const add = await api.createDevice(user, "ent-user", { name: "blocked", wireguard_pubkey: newKey() });
    expect(add.status).toBe(403);
    expect(add.json.msg).toContain("only admins");
    const put = await api.updateDevice(user, id, { name: "renamed", wireguard_pubkey: own.json.device.wireguard_pubkey });
    expect(put.status).toBe(403);
    const del = await api.deleteDevice(user, id);
    expect(del.status).toBe(403);
    expect(await deviceCount()).toBe(before);
    expect((await query<{ name: string }>("select name from devices where id = $1", [id]))[0].name).toBe("before");
    // Reading stays allowed, and so does the config download.
    expect((await api.getDevice(user, id)).status).toBe(200);
    expect((await api.deviceConfig(user, locationId, id)).status).toBe(200);

    const byAdmin = await api.createDevice(admin, "ent-user", { name: "by-admin", wireguard_pubkey: newKey() });
    expect(byAdmin.status, byAdmin.text).toBe(201);
    expect((await api.updateDevice(admin, id, { name: "renamed", wireguard_pubkey: own.json.device.wireguard_pubkey })).status).toBe(200);
    expect((await api.deleteDevice(admin, id)).status).toBe(200);
  });
});

describe("only_client_activation", () => {
  it("users may not add or change devices by hand nor download configs; deleting and admins stay allowed", async () => {
    const own = await api.createDevice(user, "ent-user", { name: "client-made", wireguard_pubkey: newKey() });
    expect(own.status).toBe(201);
    const id = own.json.device.id as number;
    await setEnterprise({ only_client_activation: true });

    const before = await deviceCount();
    const add = await api.createDevice(user, "ent-user", { name: "manual", wireguard_pubkey: newKey() });
    expect(add.status).toBe(403);
    expect(add.json.msg).toContain("desktop client");
    expect((await api.updateDevice(user, id, { name: "x", wireguard_pubkey: own.json.device.wireguard_pubkey })).status).toBe(403);
    const config = await api.deviceConfig(user, locationId, id);
    expect(config.status).toBe(403);
    expect(config.json.msg).toBeTruthy();
    expect(await deviceCount()).toBe(before);

    expect((await api.deviceConfig(admin, locationId, id)).status).toBe(200);
    expect((await api.deleteDevice(user, id)).status).toBe(200);
  });
});

describe("client_traffic_policy in generated configs", () => {
  const allowedLine = (config: string) => config.split("\n").find((l) => l.startsWith("AllowedIPs"));

  it("none: the location's allowed IPs", async () => {
    const made = await api.createDevice(admin, "ent-user", { name: "policy-none", wireguard_pubkey: newKey() });
    const cfg = made.json.configs.find((c: { network_id: number }) => c.network_id === locationId);
    expect(cfg.allowed_ips).toEqual(["203.0.113.0/24"]);
    expect(allowedLine(cfg.config)).toBe("AllowedIPs = 203.0.113.0/24");
  });

  it("force_all_traffic: 0.0.0.0/0 and ::/0 in the create answer and the download", async () => {
    await setEnterprise({ client_traffic_policy: "force_all_traffic" });
    const made = await api.createDevice(user, "ent-user", { name: "policy-force", wireguard_pubkey: newKey() });
    expect(made.status).toBe(201);
    const cfg = made.json.configs.find((c: { network_id: number }) => c.network_id === locationId);
    expect(cfg.allowed_ips).toEqual(["0.0.0.0/0", "::/0"]);
    expect(allowedLine(cfg.config)).toBe("AllowedIPs = 0.0.0.0/0, ::/0");
    const download = await api.deviceConfig(user, locationId, made.json.device.id);
    expect(download.status).toBe(200);
    expect(allowedLine(download.text)).toBe("AllowedIPs = 0.0.0.0/0, ::/0");
  });

  it("disable_all_traffic: a location routing everything gives only its own network", async () => {
    const all = await mkLocation(admin, { address: "192.0.2.1/24", allowed_ips: "0.0.0.0/0" });
    await setEnterprise({ client_traffic_policy: "disable_all_traffic" });
    const made = await api.createDevice(user, "ent-user", { name: "policy-disable", wireguard_pubkey: newKey() });
    const cfg = made.json.configs.find((c: { network_id: number }) => c.network_id === all.id);
    expect(cfg.allowed_ips).toEqual(["192.0.2.0/24"]);
    const download = await api.deviceConfig(user, all.id, made.json.device.id);
    expect(allowedLine(download.text)).toBe("AllowedIPs = 192.0.2.0/24");
    const narrow = made.json.configs.find((c: { network_id: number }) => c.network_id === locationId);
    expect(narrow.allowed_ips).toEqual(["203.0.113.0/24"]);
  });

  it("network device configs follow the policy too", async () => {
    await setEnterprise({ client_traffic_policy: "force_all_traffic" });
    const res = await api.createNetworkDevice(admin, { name: "policy-netdev", description: null, location_id: locationId, wireguard_pubkey: newKey(), assigned_ips: ["198.51.100.77"] });
    expect(res.status, res.text).toBe(201);
    expect(allowedLine(res.json.config.config)).toBe("AllowedIPs = 0.0.0.0/0, ::/0");
  });
});

describe("while enterprise features are not available (no licence, over the free tier)", () => {
  const allowedLine = (config: string) => config.split("\n").find((l) => l.startsWith("AllowedIPs"));
  const STORED = { admin_device_management: true, client_traffic_policy: "force_all_traffic", only_client_activation: true };
  const DEFAULTS = { admin_device_management: false, client_traffic_policy: "none", only_client_activation: false };
  const userCount = async () => (await query<{ n: number }>("select count(*)::int n from users"))[0].n;
  const stored = async () =>
    (await query("select admin_device_management, client_traffic_policy, only_client_activation from settings where id = 1"))[0];

  /** Every rule of the three settings, checked through the API as the plain user. */
  async function enforcement() {
    const made = await api.createDevice(user, "ent-user", { name: `probe-${Math.random().toString(36).slice(2, 8)}`, wireguard_pubkey: newKey() });
    if (made.status !== 201) return { add: made.status, config: null, allowed: null };
    const download = await api.deviceConfig(user, locationId, made.json.device.id);
    const cfg = made.json.configs.find((c: { network_id: number }) => c.network_id === locationId);
    await api.deleteDevice(admin, made.json.device.id);
    return { add: made.status, config: download.status, allowed: allowedLine(cfg.config) };
  }

  it("the stored values are kept but the defaults apply; a licence, or usage back under the limits, restores them", async () => {
    // Start under every free limit (earlier tests left devices and a second location).
    await query("delete from devices");
    await query("delete from locations where id <> $1", [locationId]);
    await setEnterprise(STORED);
    // In force with the template's licence: users may not add devices.
    expect((await call(enterpriseGet, { jar: user })).json).toEqual(STORED);
    expect((await enforcement()).add).toBe(403);

    await setLicence(null);
    const extra: string[] = [];
    try {
      // Under the free tier without a licence: enterprise for free, still enforced.
      expect(await userCount()).toBeLessThanOrEqual(5);
      expect((await call(enterpriseGet, { jar: user })).json).toEqual(STORED);
      expect((await enforcement()).add).toBe(403);

      while ((await userCount()) <= 5) {
        const name = `ent-over${extra.length}`;
        await createUser({ username: name });
        extra.push(name);
      }
      // Over the free tier: GET says the defaults, the API follows them, the stored row is untouched.
      expect((await call(enterpriseGet, { jar: user })).json).toEqual(DEFAULTS);
      expect((await call(enterpriseGet, { jar: admin })).json).toEqual(DEFAULTS);
      expect(await enforcement()).toEqual({ add: 201, config: 200, allowed: "AllowedIPs = 203.0.113.0/24" });
      expect(await stored()).toEqual(STORED);
      const lic = await call(licenseGet, { jar: admin });
      expect(lic.json.enterprise).toBe(false);
      expect(lic.json.enterprise_settings).toEqual({ in_force: false, stored: STORED });
      // Changing them is an enterprise feature: refused, nothing changes.
      const patch = await call(enterprisePatch, { method: "PATCH", path: "/api/v1/settings_enterprise", jar: admin, body: { only_client_activation: false } });
      expect(patch.status).toBe(403);
      expect(patch.json.code).toBe("license_required");
      expect(await stored()).toEqual(STORED);

      // A valid licence: the stored values apply again.
      await setLicence(testLicence());
      expect((await call(enterpriseGet, { jar: user })).json).toEqual(STORED);
      expect((await enforcement()).add).toBe(403);
      expect((await call(licenseGet, { jar: admin })).json.enterprise_settings).toEqual({ in_force: true, stored: STORED });

      // Without a licence again, but back under the free tier: enforced again.
      await setLicence(null);
      expect((await enforcement()).add).toBe(201);
      await query("delete from users where username = any($1)", [extra]);
      expect((await call(enterpriseGet, { jar: user })).json).toEqual(STORED);
      const again = await api.createDevice(user, "ent-user", { name: "under-again", wireguard_pubkey: newKey() });
      expect(again.status).toBe(403);
    } finally {
      await query("delete from users where username = any($1)", [extra]);
      await setLicence(testLicence());
    }
  });

  it("an expired licence over the free tier falls back to the defaults too, and configs follow the location again", async () => {
    await setEnterprise({ client_traffic_policy: "force_all_traffic" });
    const made = await api.createDevice(admin, "ent-user", { name: "expired-probe", wireguard_pubkey: newKey() });
    const id = made.json.device.id as number;
    expect(allowedLine((await api.deviceConfig(admin, locationId, id)).text)).toBe("AllowedIPs = 0.0.0.0/0, ::/0");
    await setLicence(testLicence({ validUntil: -30 }));
    const extra: string[] = [];
    try {
      while ((await userCount()) <= 5) {
        const name = `ent-exp${extra.length}`;
        await createUser({ username: name });
        extra.push(name);
      }
      expect(allowedLine((await api.deviceConfig(admin, locationId, id)).text)).toBe("AllowedIPs = 203.0.113.0/24");
      expect((await call(enterpriseGet, { jar: admin })).json.client_traffic_policy).toBe("none");
    } finally {
      await query("delete from users where username = any($1)", [extra]);
      await setLicence(testLicence());
      await api.deleteDevice(admin, id);
    }
  });
});
