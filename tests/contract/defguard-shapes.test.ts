/**
 * Contract tests: the answers defguard 1.6 clients depend on, checked key by key and type by
 * type against fixtures written from defguard 1.6.6's types (tests/contract/fixtures). Extra
 * fields of ours are listed here explicitly, so an answer that gains, loses or retypes a field
 * fails until the fixture (or the list) says so.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as userGet } from "@/app/api/v1/user/[username]/route";
import { GET as settingsGet, PATCH as settingsPatch, PUT as settingsPut } from "@/app/api/v1/settings/route";
import { GET as essentialsGet } from "@/app/api/v1/settings_essentials/route";
import { GET as enterpriseGet, PATCH as enterprisePatch } from "@/app/api/v1/settings_enterprise/route";
import { GET as activityGet } from "@/app/api/v1/activity_log/route";
import { GET as outdatedGet } from "@/app/api/v1/outdated/route";
import { GET as updatesGet } from "@/app/api/v1/updates/route";
import { GET as enterpriseInfoGet } from "@/app/api/v1/enterprise_info/route";
import { GET as openidProviderGet } from "@/app/api/v1/openid/provider/route";
import { GET as streamsGet } from "@/app/api/v1/activity_log_stream/route";
import { GET as authKeysGet, POST as authKeyPost } from "@/app/api/v1/user/[username]/auth_key/route";
import { GET as apiTokensGet, POST as apiTokenPost } from "@/app/api/v1/user/[username]/api_token/route";
import { SSH_ED25519 } from "../fixtures/auth-keys";
import * as unknownPath from "@/app/api/v1/[...path]/route";
import { ACTIVITY_EVENTS } from "@/lib/activity/events";
import { call, createUser, query, setLicence, signIn, testLicence, type Jar } from "../helpers";
import { api, mkDevice, mkGroup, mkLocation, newKey } from "../wireguard-fixtures";
import { alsoNull, checkShape, type Shape } from "./shape";
import { USER_DETAILS } from "./fixtures/user";
import { IP_CHECK, SPLIT_IP } from "./fixtures/network-device-ip";
import { SETTINGS, SETTINGS_ENTERPRISE, SETTINGS_ESSENTIALS } from "./fixtures/settings";
import { ACTIVITY_LOG_EVENT, ACTIVITY_LOG_PAGE, DEFGUARD_EVENTS } from "./fixtures/activity";
import { API_TOKEN, AUTH_KEY, ENTERPRISE_INFO, ENTERPRISE_INFO_NONE, ERROR, OUTDATED } from "./fixtures/stubs";
import { ACTIVITY_LOG_STREAM, WEBHOOK } from "./fixtures/webhooks";
import { GET as webhooksGet, POST as webhookPost } from "@/app/api/v1/webhook/route";
import { GET as webhookGet } from "@/app/api/v1/webhook/[id]/route";
import { POST as streamPost } from "@/app/api/v1/activity_log_stream/route";

/** Our addition to defguard's ActivityLogStream: the delivery state. */
const OUR_STREAM: Shape = { status: { last_success: "string|null", backlog: "number", last_error: "string|null", last_error_at: "string|null", paused: "string|null" } };

/** Our additions to defguard's Settings. */
const OUR_SETTINGS: Shape = {
  require_mfa: "boolean",
  smtp_password_set: "boolean",
  ldap_bind_password_set: "boolean",
  smtp_configured: "boolean",
  // Settings → Global and the Support page (issue 19).
  default_overview_view: "string",
  support_email: "string",
};

/** Our addition to defguard's SettingsEssentials: the overview's default view. */
const OUR_ESSENTIALS: Shape = { default_overview_view: "string" };

/** Our addition to defguard's outdated gateway entries: the location it serves (the notice links there). */
const OUR_OUTDATED: Shape = { gateways: [{ version: "string", hostname: "string", location_id: "number", location_name: "string" }], proxy: "null" };

/** Events defguard has no name for; each keeps a name in the same style. */
const OUR_EVENTS = [
  "yubikey_provisioning_started",
  "yubikey_provisioning_failed",
  "provisioning_worker_removed",
  "user_enabled",
  "user_disabled",
  "mfa_enabled",
  "mfa_security_key_renamed",
  "vpn_location_devices_imported",
  "network_device_configured",
  "gateway_connected",
  "gateway_disconnected",
  "gateway_removed",
  "gateway_token_rotated",
  "user_reauthenticated",
  "smtp_test_sent",
  "open_id_app_consent_given",
  "open_id_app_consent_revoked",
  "user_login_open_id_app",
  "open_id_keys_rotated",
  // defguard 1.6 logs no ACL events; ours, named like its other events.
  "acl_rule_added",
  "acl_rule_modified",
  "acl_rule_removed",
  "acl_rules_applied",
  "acl_alias_added",
  "acl_alias_modified",
  "acl_alias_removed",
  "acl_aliases_applied",
  // LDAP two-way sync: defguard 1.6 logs none of these; one line per change the sync makes.
  "ldap_user_added",
  "ldap_user_modified",
  "ldap_user_removed",
  "ldap_group_added",
  "ldap_group_removed",
  "ldap_group_member_added",
  "ldap_group_member_removed",
  "ldap_password_changed",
  "ldap_sync_failed",
  // defguard 1.6 only logs it to its own log.
  "mobile_auth_registered",
  // Gateway revisions and drift (lib/gateways/sync.ts): a reconcile or repair, the sync settings changed.
  "gateway_reconciled",
  "gateway_sync_settings_modified",
  // Bulk actions (lib/bulk): one entry per device moved or whose configuration was regenerated.
  "network_device_moved",
  "device_config_regenerated",
  // Branding and the Support page (issue 19); settings_default_branding_restored is defguard's own.
  "branding_logo_uploaded",
  "branding_logo_removed",
  "support_mail_sent",
];

let admin: Jar;
let alice: Jar;
let location: { id: number };

const expectShape = (value: unknown, shape: Shape | [Shape]) => expect(checkShape(value, shape)).toEqual([]);

beforeAll(async () => {
  await createUser({ username: "root", isAdmin: true });
  await createUser({ username: "alice" });
  admin = await signIn("root");
  alice = await signIn("alice");
  await mkGroup(admin, "staff", ["alice"]);
  location = await mkLocation(admin, { address: "10.70.0.1/24, fd70::1/64", allowed_groups: ["staff"] });
  await mkDevice(admin, "alice", { name: "laptop" });
});

describe("UserDetails", () => {
  it("GET /user/{username}: {user, devices, security_keys, biometric_enabled_devices}", async () => {
    const res = await call(userGet, { jar: alice, params: { username: "alice" } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.devices).toHaveLength(1);
    expect(res.json.devices[0].networks).toHaveLength(1);
    expect(res.json.biometric_enabled_devices).toEqual([]);
    expectShape(res.json, USER_DETAILS);
  });
});

describe("network-device addresses", () => {
  it("GET /device/network/ip/{id}: [SplitIp], one per address of the location", async () => {
    const res = await api.nextIp(admin, location.id);
    expect(res.status, res.text).toBe(200);
    expect(res.json).toHaveLength(2);
    expectShape(res.json, [SPLIT_IP]);
  });

  it("POST /device/network/ip/{id}: [{available, valid}]", async () => {
    const res = await api.checkIps(admin, location.id, { ips: ["10.70.0.50", "nonsense"] });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toHaveLength(2);
    expectShape(res.json, [IP_CHECK]);
  });

  it("404 {msg} for a full location", async () => {
    await mkGroup(admin, "nobody");
    const tiny = await mkLocation(admin, { address: "10.71.0.1/30", allowed_groups: ["nobody"] });
    const filler = await api.createNetworkDevice(admin, { name: "filler", location_id: tiny.id, assigned_ips: ["10.71.0.2"], wireguard_pubkey: newKey() });
    expect(filler.status, filler.text).toBe(201);
    const res = await api.nextIp(admin, tiny.id);
    expect(res.status).toBe(404);
    expectShape(res.json, ERROR);
  });
});

describe("Settings", () => {
  it("GET /settings: defguard's Settings plus our listed fields", async () => {
    const res = await call(settingsGet, { jar: admin });
    expect(res.status).toBe(200);
    expectShape(res.json, { ...SETTINGS, ...OUR_SETTINGS });
  });

  it("PATCH and PUT /settings answer the same shape, secrets empty", async () => {
    const patched = await call(settingsPatch, {
      method: "PATCH",
      jar: admin,
      body: { smtp_password: "Secret-1", ldap_bind_password: "Secret-2", ldap_url: "ldaps://ldap.example.com", license: testLicence() },
    });
    expect(patched.status, patched.text).toBe(200);
    expectShape(patched.json, { ...SETTINGS, ...OUR_SETTINGS });
    expect([patched.json.smtp_password, patched.json.ldap_bind_password]).toEqual(["", ""]);
    const put = await call(settingsPut, { method: "PUT", jar: admin, body: patched.json });
    expect(put.status, put.text).toBe(200);
    expectShape(put.json, { ...SETTINGS, ...OUR_SETTINGS });
    expect(put.json).toMatchObject({ smtp_password_set: true, ldap_bind_password_set: true });
  });

  it("GET /settings_essentials: SettingsEssentials, empty logos replaced by the /svg/ defaults that exist", async () => {
    await call(settingsPatch, { method: "PATCH", jar: admin, body: { main_logo_url: "", nav_logo_url: "" } });
    const res = await call(essentialsGet, {});
    expect(res.status).toBe(200);
    expectShape(res.json, { ...SETTINGS_ESSENTIALS, ...OUR_ESSENTIALS });
    expect(res.json.main_logo_url).toBe("/svg/logo-defguard-white.svg");
    expect(res.json.nav_logo_url).toBe("/svg/defguard-nav-logo.svg");
    for (const url of [res.json.main_logo_url, res.json.nav_logo_url]) {
      const file = fileURLToPath(new URL(`../../public${url}`, import.meta.url));
      expect(existsSync(file), file).toBe(true);
      expect(readFileSync(file, "utf8")).toContain("<svg");
    }
  });

  it("GET/PATCH /settings_enterprise: EnterpriseSettings", async () => {
    const res = await call(enterpriseGet, { jar: alice });
    expect(res.status).toBe(200);
    expectShape(res.json, SETTINGS_ENTERPRISE);
    const patched = await call(enterprisePatch, { method: "PATCH", jar: admin, body: { client_traffic_policy: "force_all_traffic" } });
    expect(patched.status, patched.text).toBe(200);
    expectShape(patched.json, SETTINGS_ENTERPRISE);
  });
});

describe("activity log", () => {
  it("GET /activity_log: ApiActivityLogEvent items (user, address and device may be unset here)", async () => {
    const res = await call(activityGet, { jar: admin, path: "/api/v1/activity_log?page_size=500" });
    expect(res.status).toBe(200);
    expect(res.json.data.length).toBeGreaterThan(3);
    // System events have no user, a sign-in no device: null where defguard always has a value.
    expectShape(res.json, { ...ACTIVITY_LOG_PAGE, data: [alsoNull(ACTIVITY_LOG_EVENT, ["user_id", "ip", "device"])] });
  });

  it("every event name is defguard's, or one of ours in the same style", () => {
    const defguard = new Set<string>(DEFGUARD_EVENTS);
    const foreign = ACTIVITY_EVENTS.filter((e) => !defguard.has(e));
    expect(foreign.sort()).toEqual([...OUR_EVENTS].sort());
    for (const e of OUR_EVENTS) {
      expect(e).toMatch(/^[a-z]+(_[a-z]+)+$/);
      expect(defguard.has(e), `${e} is defguard's own name now: drop it from OUR_EVENTS`).toBe(false);
    }
  });

  it("the events recorded so far are all in the typed list", async () => {
    const rows = await query<{ event: string }>("select distinct event from activity_log");
    expect(rows.length).toBeGreaterThan(3);
    for (const r of rows) expect(ACTIVITY_EVENTS).toContain(r.event);
  });
});

describe("routes of features not built yet answer like an unused defguard", () => {
  it("GET /outdated → {gateways: [], proxy: null}", async () => {
    const res = await call(outdatedGet, { jar: admin });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ gateways: [], proxy: null });
    expectShape(res.json, OUTDATED);
  });

  it("GET /outdated lists a gateway that reported a version below 1.5.0", async () => {
    await query("insert into gateways (location_id, hostname, version) values ($1, 'old-gw', '1.4.2'), ($1, 'new-gw', '1.6.0')", [location.id]);
    const res = await call(outdatedGet, { jar: admin });
    expect(res.json).toEqual({ gateways: [{ version: "1.4.2", hostname: "old-gw", location_id: location.id, location_name: expect.any(String) }], proxy: null });
    expectShape(res.json, OUR_OUTDATED);
    await query("delete from gateways where location_id = $1", [location.id]);
  });

  it("GET /updates → null", async () => {
    const res = await call(updatesGet, { jar: admin });
    expect(res.status).toBe(200);
    expect(res.text).toBe("null");
  });

  it("GET /enterprise_info → {license_info: {...}} with a licence, {license_info: null} without", async () => {
    const res = await call(enterpriseInfoGet, { jar: admin });
    expect(res.status).toBe(200);
    expectShape(res.json, ENTERPRISE_INFO);
    await setLicence(null);
    try {
      const none = await call(enterpriseInfoGet, { jar: admin });
      expectShape(none.json, ENTERPRISE_INFO_NONE);
    } finally {
      await setLicence(testLicence());
    }
  });

  it("GET /openid/provider → 204, no body (what defguard sends when no provider is set)", async () => {
    const res = await call(openidProviderGet, { jar: admin });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
  });

});

describe("API tokens and authentication keys", () => {
  it("GET /user/{u}/api_token: [{id, name, created_at}] (404 {msg} for an unknown user)", async () => {
    const made = await call(apiTokenPost, { method: "POST", jar: admin, params: { username: "root" }, body: { name: "contract" } });
    expect(made.status, made.text).toBe(201);
    expectShape(made.json, { token: "string" });
    const res = await call(apiTokensGet, { jar: admin, params: { username: "root" } });
    expect(res.status, res.text).toBe(200);
    expectShape(res.json, [API_TOKEN]);
    const missing = await call(apiTokensGet, { jar: admin, params: { username: "nobody-here" } });
    expect(missing.status).toBe(404);
    expectShape(missing.json, ERROR);
  });

  it("GET /user/{u}/auth_key: [AuthenticationKeyInfo] ([] without keys)", async () => {
    const empty = await call(authKeysGet, { jar: alice, params: { username: "alice" } });
    expect(empty.status, empty.text).toBe(200);
    expect(empty.json).toEqual([]);
    const made = await call(authKeyPost, { method: "POST", jar: alice, params: { username: "alice" }, body: { name: "laptop", key_type: "ssh", key: SSH_ED25519 } });
    expect(made.status, made.text).toBe(201);
    const res = await call(authKeysGet, { jar: alice, params: { username: "alice" } });
    expectShape(res.json, [alsoNull(AUTH_KEY, ["yubikey_serial", "yubikey_id", "yubikey_name"])]);
  });
});

describe("webhooks and activity-log streams", () => {
  it("GET /webhook, /webhook/{id}", async () => {
    const body = { url: "https://hooks.example.com/x", description: "d", token: "t0ken", enabled: true, on_user_created: true, on_user_deleted: false, on_user_modified: false, on_hwkey_provision: false };
    const created = await call(webhookPost, { method: "POST", jar: admin, body });
    expect(created.status).toBe(201);
    expectShape((await call(webhooksGet, { jar: admin })).json, [WEBHOOK]);
    expectShape((await call(webhookGet, { jar: admin, params: { id: String(created.json.id) } })).json, WEBHOOK);
  });

  it("GET /activity_log_stream", async () => {
    expect((await call(streamsGet, { jar: admin })).json).toEqual([]);
    // This file's instance is over the free limits (no enterprise features): the row is written directly.
    const refused = await call(streamPost, { method: "POST", jar: admin, body: { name: "v", stream_type: "vector_http", stream_config: { url: "https://198.51.100.7:8686/" } } });
    if (refused.status === 403) await query("insert into activity_log_streams (name, stream_type, url) values ('v', 'vector_http', 'https://198.51.100.7:8686/')");
    else expect(refused.status).toBe(201);
    expectShape((await call(streamsGet, { jar: admin })).json, [{ ...ACTIVITY_LOG_STREAM, ...OUR_STREAM }]);
  });
});

describe("unknown /api/v1 paths", () => {
  it.each(["GET", "POST", "PUT", "PATCH", "DELETE"] as const)("%s → 404 {msg} in JSON, also with a session and no anti-forgery header", async (method) => {
    const handler = unknownPath[method];
    for (const jar of [undefined, admin]) {
      const res = await call(handler, {
        method,
        path: "/api/v1/no/such/endpoint",
        params: { path: ["no", "such", "endpoint"] },
        cookies: jar,
        body: method === "GET" || method === "DELETE" ? undefined : {},
      });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toBe("application/json");
      expectShape(res.json, ERROR);
      expect(res.json.msg).toBe("no such API endpoint: /api/v1/no/such/endpoint");
    }
  });

  it("the catch-all is the only route file with a catch-all segment, at the top of /api/v1", () => {
    const dir = fileURLToPath(new URL("../../app/api/v1/", import.meta.url));
    const found: string[] = [];
    const walk = (d: string, rel: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (!e.isDirectory()) continue;
        if (e.name.includes("...")) found.push(`${rel}${e.name}`);
        walk(`${d}${e.name}/`, `${rel}${e.name}/`);
      }
    };
    walk(dir, "");
    expect(found).toEqual(["[...path]"]);
  });
});
