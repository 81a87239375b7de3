import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call, createUser, query, setLicence, signIn, signPayload, testLicence, type Jar } from "@/tests/helpers";
import { EXTRA_KEY_ENV, TEST_LICENCE_PUBLIC_KEY } from "@/tests/fixtures/licence";
import { GET as infoGet } from "@/app/api/v1/info/route";
import { GET as enterpriseInfoGet } from "@/app/api/v1/enterprise_info/route";
import { GET as licenceGet } from "@/app/api/v1/license/route";
import { GET as settingsGet, PATCH as settingsPatch } from "@/app/api/v1/settings/route";
import { entitlementOf, FREE_LIMITS, statusOfKey } from "./service";
import { SUBSCRIPTION_GRACE_MS } from "./licence";

const DAY = 86_400_000;
let admin: Jar;

beforeAll(async () => {
  await createUser({ username: "lic-admin", isAdmin: true });
  admin = await signIn("lic-admin");
});

beforeEach(async () => {
  process.env[EXTRA_KEY_ENV] = TEST_LICENCE_PUBLIC_KEY;
  await query("delete from users where username like 'lic-extra%'");
  await setLicence(null);
});

async function exceedUsers() {
  for (let i = 0; i < FREE_LIMITS.users; i++) await createUser({ username: `lic-extra${i}` });
}

async function info() {
  const res = await call(infoGet, { jar: admin });
  expect(res.status).toBe(200);
  return res.json.license_info;
}

async function enterpriseInfo() {
  const res = await call(enterpriseInfoGet, { jar: admin });
  expect(res.status).toBe(200);
  return res.json;
}

const NONE = { user: false, device: false, wireguard_network: false, network_device: false };

describe("GET /info license_info and GET /enterprise_info", () => {
  it("no licence, under the free limits: enterprise for free", async () => {
    expect(await info()).toEqual({ enterprise: true, limits_exceeded: NONE, any_limit_exceeded: false, is_enterprise_free: true, tier: null });
    expect(await enterpriseInfo()).toEqual({ license_info: null });
  });

  it("no licence, over the free limits: enterprise off, the exceeded kind named", async () => {
    await exceedUsers();
    expect(await info()).toEqual({
      enterprise: false,
      limits_exceeded: { ...NONE, user: true },
      any_limit_exceeded: true,
      is_enterprise_free: false,
      tier: null,
    });
    expect(await enterpriseInfo()).toEqual({ license_info: null });
  });

  it("a valid licence over the free limits: enterprise on, paid", async () => {
    await exceedUsers();
    const until = new Date(Date.now() + 30 * DAY);
    await setLicence(testLicence({ tier: "Business", validUntil: until }));
    expect(await info()).toEqual({ enterprise: true, limits_exceeded: NONE, any_limit_exceeded: false, is_enterprise_free: false, tier: "Business" });
    expect(await enterpriseInfo()).toEqual({
      license_info: { valid_until: until.toISOString(), subscription: false, expired: false, limits_exceeded: false, tier: "Business" },
    });
  });

  it("an expired one-off licence: expired, free limits apply again", async () => {
    await exceedUsers();
    const until = new Date(Date.now() - DAY);
    await setLicence(testLicence({ validUntil: until }));
    expect(await info()).toEqual({
      enterprise: false,
      limits_exceeded: { ...NONE, user: true },
      any_limit_exceeded: true,
      is_enterprise_free: false,
      tier: "Enterprise",
    });
    expect((await enterpriseInfo()).license_info).toEqual({ valid_until: until.toISOString(), subscription: false, expired: true, limits_exceeded: false, tier: "Enterprise" });
  });

  it("a subscription past its date but within the grace period still works; after it, expired", async () => {
    await exceedUsers();
    await setLicence(testLicence({ subscription: true, validUntil: -3 }));
    expect((await info()).enterprise).toBe(true);
    expect((await enterpriseInfo()).license_info).toMatchObject({ subscription: true, expired: false });
    expect((await call(licenceGet, { jar: admin })).json).toMatchObject({ state: "grace", enterprise: true });

    await setLicence(testLicence({ subscription: true, validUntil: new Date(Date.now() - SUBSCRIPTION_GRACE_MS - DAY) }));
    expect((await info()).enterprise).toBe(false);
    expect((await enterpriseInfo()).license_info).toMatchObject({ subscription: true, expired: true });
    expect((await call(licenceGet, { jar: admin })).json).toMatchObject({ state: "expired", enterprise: false });
  });

  it("a stored key with a bad signature counts as no licence (GET /license says invalid)", async () => {
    await exceedUsers();
    const good = testLicence();
    const [p, body, sig] = good.split(".");
    const tampered = `${p}.${body}.${sig.startsWith("A") ? "B" : "A"}${sig.slice(1)}`;
    await setLicence(tampered);
    expect(await info()).toMatchObject({ enterprise: false, tier: null, any_limit_exceeded: true });
    expect(await enterpriseInfo()).toEqual({ license_info: null });
    const details = (await call(licenceGet, { jar: admin })).json;
    expect(details.state).toBe("invalid");
    expect(details.error).toMatch(/signature/);
  });

  it("a licence whose own limits are exceeded: enterprise off, limits_exceeded against the licence", async () => {
    await exceedUsers(); // 6 users
    await setLicence(testLicence({ limits: { users: 5, devices: 100, locations: 10, network_devices: 100 } }));
    expect(await info()).toEqual({
      enterprise: false,
      limits_exceeded: { ...NONE, user: true },
      any_limit_exceeded: true,
      is_enterprise_free: false,
      tier: "Enterprise",
    });
    expect((await enterpriseInfo()).license_info).toMatchObject({ expired: false, limits_exceeded: true });
    await setLicence(testLicence({ limits: { users: 6, devices: 0, locations: 0, network_devices: 0 } }));
    expect((await info()).enterprise).toBe(true);
    expect((await enterpriseInfo()).license_info.limits_exceeded).toBe(false);
  });

  it("limits_exceeded names each kind (devices, locations, network devices)", () => {
    const none = statusOfKey(null);
    const base = { users: 1, devices: 0, locations: 0, networkDevices: 0 };
    expect(entitlementOf({ ...base, devices: 11 }, none).limitsExceeded).toEqual({ ...NONE, device: true });
    expect(entitlementOf({ ...base, locations: 2 }, none).limitsExceeded).toEqual({ ...NONE, wireguard_network: true });
    expect(entitlementOf({ ...base, networkDevices: 11 }, none).limitsExceeded).toEqual({ ...NONE, network_device: true });
    expect(entitlementOf({ ...base, devices: 10, locations: 1, networkDevices: 10, users: 5 }, none).enterprise).toBe(true);
  });
});

describe("entering a licence in Settings", () => {
  it("stores a valid key and GET /license shows it with its state", async () => {
    const key = testLicence({ customer: "ACME", tier: "Business", subscription: true, validUntil: 90, limits: { users: 50, devices: 100, locations: 5, network_devices: 20 } });
    const res = await call(settingsPatch, { method: "PATCH", jar: admin, body: { license: key } });
    expect(res.status).toBe(200);
    expect(res.json.license).toBe(key);
    const d = (await call(licenceGet, { jar: admin })).json;
    expect(d).toMatchObject({
      state: "valid",
      error: null,
      customer: "ACME",
      tier: "Business",
      subscription: true,
      license_limits: { users: 50, devices: 100, locations: 5, network_devices: 20 },
      limits: { users: 50, devices: 100, locations: 5, network_devices: 20 },
      enterprise: true,
    });
    expect(Date.parse(d.grace_until) - Date.parse(d.valid_until)).toBe(SUBSCRIPTION_GRACE_MS);
    // Removing it: back to none.
    expect((await call(settingsPatch, { method: "PATCH", jar: admin, body: { license: null } })).status).toBe(200);
    expect((await call(licenceGet, { jar: admin })).json.state).toBe("none");
  });

  it.each([
    ["garbage", "not a licence"],
    ["DGL1.e30.AAAA", "signature is malformed"],
    ["DGL1.!!.??", "not a licence"],
  ])("refuses the malformed key %j with 400 {msg, field: license} and keeps the stored one", async (key, reason) => {
    const kept = testLicence({ customer: "kept" });
    await setLicence(kept);
    const res = await call(settingsPatch, { method: "PATCH", jar: admin, body: { license: key } });
    expect(res.status).toBe(400);
    expect(res.json.field).toBe("license");
    expect(res.json.msg).toMatch(new RegExp(`^license: .*${reason}`));
    expect((await call(settingsGet, { jar: admin })).json.license).toBe(kept);
  });

  it("refuses a tampered key (payload changed after signing) and one signed by an unknown key", async () => {
    const good = testLicence({ limits: { users: 5, devices: 5, locations: 1, network_devices: 1 } });
    const [p, body, sig] = good.split(".");
    const payload = JSON.parse(Buffer.from(body, "base64url").toString());
    payload.limits = null; // "unlimited, please"
    const tampered = `${p}.${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${sig}`;
    const { generateKeyPairSync } = await import("node:crypto");
    const stranger = generateKeyPairSync("ed25519").privateKey.export({ format: "pem", type: "pkcs8" }) as string;
    const foreign = signPayload({ v: 1, customer: "x", tier: "Enterprise", subscription: false, valid_until: "2099-01-01T00:00:00Z", limits: null }, stranger);
    for (const key of [tampered, foreign]) {
      const res = await call(settingsPatch, { method: "PATCH", jar: admin, body: { license: key } });
      expect(res.status).toBe(400);
      expect(res.json).toMatchObject({ field: "license", msg: expect.stringMatching(/signature does not match/) });
    }
    expect((await call(settingsGet, { jar: admin })).json.license).toBeNull();
  });

  it("refuses a signed payload that is not a licence (no customer, unknown tier, bad limits)", async () => {
    for (const bad of [
      { v: 1, tier: "Enterprise", subscription: false, valid_until: "2099-01-01T00:00:00Z", limits: null },
      { v: 1, customer: "x", tier: "Gold", subscription: false, valid_until: "2099-01-01T00:00:00Z", limits: null },
      { v: 1, customer: "x", tier: "Business", subscription: false, valid_until: "2099-01-01T00:00:00Z", limits: { users: -1, devices: 1, locations: 1, network_devices: 1 } },
      { v: 2, customer: "x", tier: "Business", subscription: false, valid_until: "2099-01-01T00:00:00Z", limits: null },
    ]) {
      const res = await call(settingsPatch, { method: "PATCH", jar: admin, body: { license: signPayload(bad) } });
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.json.field).toBe("license");
    }
  });

  it("accepts an expired key (its state is shown) — defguard does too", async () => {
    const res = await call(settingsPatch, { method: "PATCH", jar: admin, body: { license: testLicence({ validUntil: -10 }) } });
    expect(res.status).toBe(200);
    expect((await call(licenceGet, { jar: admin })).json.state).toBe("expired");
  });

  it("trusts the test key only while DEFGUARD_LICENSE_EXTRA_PUBLIC_KEY names it", async () => {
    delete process.env[EXTRA_KEY_ENV];
    const res = await call(settingsPatch, { method: "PATCH", jar: admin, body: { license: testLicence() } });
    expect(res.status).toBe(400);
    await setLicence(testLicence());
    expect((await call(licenceGet, { jar: admin })).json.state).toBe("invalid");
  });

  it("GET /license is for admins only", async () => {
    await createUser({ username: "lic-plain" });
    expect((await call(licenceGet, { jar: await signIn("lic-plain") })).status).toBe(403);
    expect((await call(licenceGet)).status).toBe(401);
  });
});

describe("scripts/license.mjs (the operator tool)", () => {
  const dir = mkdtempSync(join(tmpdir(), "licence-tool-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("makes a key pair, signs a licence the console accepts with that public key, and shows it", async () => {
    const keyFile = join(dir, "signing.pem");
    const pub = execFileSync(process.execPath, ["scripts/license.mjs", "keygen", keyFile], { encoding: "utf8" }).trim();
    expect(pub).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(readFileSync(keyFile, "utf8")).toContain("PRIVATE KEY");
    // Never overwrites a signing key.
    expect(() => execFileSync(process.execPath, ["scripts/license.mjs", "keygen", keyFile], { stdio: "pipe" })).toThrow();
    const key = execFileSync(
      process.execPath,
      ["scripts/license.mjs", "sign", keyFile, "--customer", "Tool Ltd", "--tier", "enterprise", "--valid-until", "2031-06-30", "--subscription", "--users", "20", "--devices", "40", "--locations", "3", "--network-devices", "5"],
      { encoding: "utf8" },
    ).trim();
    process.env[EXTRA_KEY_ENV] = pub;
    const res = await call(settingsPatch, { method: "PATCH", jar: admin, body: { license: key } });
    expect(res.status).toBe(200);
    expect((await call(licenceGet, { jar: admin })).json).toMatchObject({
      state: "valid",
      customer: "Tool Ltd",
      tier: "Enterprise",
      subscription: true,
      valid_until: "2031-06-30T00:00:00.000Z",
      license_limits: { users: 20, devices: 40, locations: 3, network_devices: 5 },
    });
    const shown = JSON.parse(execFileSync(process.execPath, ["scripts/license.mjs", "show", key], { encoding: "utf8" }));
    expect(shown).toMatchObject({ v: 1, customer: "Tool Ltd" });
    // The test key no longer verifies once the extra key names another one.
    expect((await call(settingsPatch, { method: "PATCH", jar: admin, body: { license: testLicence() } })).status).toBe(400);
  });

  it("refuses incomplete limits", () => {
    const keyFile = join(dir, "other.pem");
    execFileSync(process.execPath, ["scripts/license.mjs", "keygen", keyFile], { encoding: "utf8" });
    expect(() =>
      execFileSync(process.execPath, ["scripts/license.mjs", "sign", keyFile, "--customer", "x", "--valid-until", "2030-01-01", "--users", "3"], { stdio: "pipe" }),
    ).toThrow();
  });
});
