/**
 * defguard 1.6 wire compatibility beyond the shapes (tests/contract): settings values and
 * write-only secrets, refusals of unknown enum values, the activity events that got
 * defguard's names, and the migration of rows recorded under the old names.
 */
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as settingsGet, PATCH as settingsPatch, PUT as settingsPut } from "@/app/api/v1/settings/route";
import { PATCH as enterprisePatch, GET as enterpriseGet } from "@/app/api/v1/settings_enterprise/route";
import { PUT as userPut } from "@/app/api/v1/user/[username]/route";
import { GET as meGet } from "@/app/api/v1/me/route";
import { call, createUser, query, setLicence, signIn, testLicence, type Jar } from "./helpers";
import { mkGroup } from "./wireguard-fixtures";

let admin: Jar;
let bob: Jar;

beforeAll(async () => {
  await createUser({ username: "root", isAdmin: true });
  await createUser({ username: "bob" });
  admin = await signIn("root");
  bob = await signIn("bob");
});

const patch = (body: unknown, jar = admin) => call(settingsPatch, { method: "PATCH", jar, body });
const lastEvent = async () =>
  (await query<{ event: string; description: string | null }>("select event, description from activity_log order by id desc limit 1"))[0];

describe("settings", () => {
  it("defaults are defguard's: LDAP attributes and object classes, OpenID, enrollment, gateway notifications", async () => {
    await setLicence(null); // the test databases start with a test licence (tests/setup/global.ts)
    const res = await call(settingsGet, { jar: admin });
    await setLicence(testLicence());
    expect(res.json).toMatchObject({
      smtp_encryption: "StartTls",
      ldap_bind_username: "cn=admin,dc=example,dc=org",
      ldap_group_member_attr: "uniqueMember",
      ldap_group_obj_class: "groupOfUniqueNames",
      ldap_user_obj_class: "inetOrgPerson",
      ldap_username_attr: "cn",
      ldap_member_attr: "memberOf",
      ldap_user_auxiliary_obj_classes: ["simpleSecurityObject", "sambaSamAccount"],
      ldap_sync_groups: [],
      ldap_sync_interval: 300,
      ldap_tls_verify_cert: true,
      ldap_enabled: false,
      openid_create_account: true,
      openid_username_handling: "RemoveForbidden",
      enrollment_vpn_step_optional: true,
      enrollment_use_welcome_message_as_email: true,
      license: null,
      gateway_disconnect_notifications_enabled: false,
      gateway_disconnect_notifications_inactivity_threshold: 5,
      gateway_disconnect_notifications_reconnect_notification_enabled: false,
    });
    expect(res.json.enrollment_welcome_message).toContain("{{ username }}");
  });

  it("smtp_encryption takes defguard's values and stores them for the mailer", async () => {
    for (const [value, stored] of [
      ["None", "none"],
      ["ImplicitTls", "implicit_tls"],
      ["StartTls", "starttls"],
    ]) {
      const res = await patch({ smtp_encryption: value });
      expect(res.status, res.text).toBe(200);
      expect(res.json.smtp_encryption).toBe(value);
      expect((await query<{ e: string }>("select smtp_encryption e from settings"))[0].e).toBe(stored);
    }
  });

  it("the LDAP bind password is write-only and encrypted at rest; '' keeps it, null clears it", async () => {
    const SECRET = "Ld4p-Bind-Secret-xyzzy";
    const res = await patch({ ldap_bind_password: SECRET, ldap_url: "ldap://ldap.example.com:389", ldap_sync_groups: ["vpn", "staff"] });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ ldap_bind_password: "", ldap_bind_password_set: true, ldap_sync_groups: ["vpn", "staff"] });
    expect(res.text).not.toContain(SECRET);
    const enc = async () => (await query<{ e: string | null }>("select ldap_bind_password_enc e from settings"))[0].e;
    const stored = await enc();
    expect(stored).toMatch(/^v1:/);
    expect(stored).not.toContain(SECRET);
    expect((await call(settingsGet, { jar: admin })).text).not.toContain(SECRET);
    expect(JSON.stringify(await query("select * from activity_log"))).not.toContain(SECRET);
    // A defguard client sends back what it read: the empty password leaves the stored one alone.
    const read = (await call(settingsGet, { jar: admin })).json;
    expect((await call(settingsPut, { method: "PUT", jar: admin, body: read })).status).toBe(200);
    expect(await enc()).toBe(stored);
    expect((await patch({ ldap_bind_password: null })).json.ldap_bind_password_set).toBe(false);
    expect(await enc()).toBeNull();
  });

  it("unknown enum values and bad values get 400 {msg, field} and change nothing", async () => {
    const before = await query("select * from settings where id = 1");
    const eventsBefore = await query("select count(*)::int n from activity_log");
    for (const body of [
      { smtp_encryption: "tls" },
      { smtp_encryption: "starttls" },
      { smtp_encryption: null },
      { openid_username_handling: "remove_forbidden" },
      { ldap_url: "http://ldap.example.com" },
      { ldap_sync_interval: 0 },
      { ldap_sync_interval: "300" },
      { ldap_sync_groups: "vpn" },
      { ldap_user_auxiliary_obj_classes: [1] },
      { ldap_enabled: "yes" },
      { gateway_disconnect_notifications_inactivity_threshold: 0 },
      { ldap_bind_password: 5 },
    ]) {
      const res = await patch(body);
      const field = Object.keys(body)[0];
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.field, JSON.stringify(body)).toMatch(new RegExp(`^${field}`));
      expect(res.json.msg).toMatch(new RegExp(`^${field}`));
    }
    expect(await query("select * from settings where id = 1")).toEqual(before);
    expect(await query("select count(*)::int n from activity_log")).toEqual(eventsBefore);
  });

  it("PUT records settings_updated, PATCH settings_updated_partial", async () => {
    expect((await call(settingsPut, { method: "PUT", jar: admin, body: { instance_name: "Corp" } })).status).toBe(200);
    expect(await lastEvent()).toMatchObject({ event: "settings_updated" });
    expect((await patch({ instance_name: "Corp 2" })).status).toBe(200);
    expect(await lastEvent()).toMatchObject({ event: "settings_updated_partial" });
  });

  it("enterprise settings: any user reads them, only admins change them, unknown policies are refused", async () => {
    expect((await call(enterpriseGet, { jar: bob })).json).toEqual({ admin_device_management: false, client_traffic_policy: "none", only_client_activation: false });
    expect((await call(enterprisePatch, { method: "PATCH", jar: bob, body: { only_client_activation: true } })).status).toBe(403);
    const bad = await call(enterprisePatch, { method: "PATCH", jar: admin, body: { client_traffic_policy: "all" } });
    expect(bad.status).toBe(400);
    expect(bad.json.field).toBe("client_traffic_policy");
    const ok = await call(enterprisePatch, { method: "PATCH", jar: admin, body: { client_traffic_policy: "disable_all_traffic", admin_device_management: true } });
    expect(ok.json).toEqual({ admin_device_management: true, client_traffic_policy: "disable_all_traffic", only_client_activation: false });
    expect((await call(enterpriseGet, { jar: bob })).json.client_traffic_policy).toBe("disable_all_traffic");
  });
});

describe("activity events with defguard's names", () => {
  it("a user edit that changes groups records user_groups_modified and user_modified; without a change only user_modified", async () => {
    await mkGroup(admin, "ops");
    const me = (await call(meGet, { jar: bob })).json;
    const body = { username: "bob", first_name: me.first_name, last_name: me.last_name, email: me.email, phone: null, groups: ["ops"] };
    const before = (await query<{ id: number }>("select coalesce(max(id), 0)::int id from activity_log"))[0].id;
    expect((await call(userPut, { method: "PUT", jar: admin, params: { username: "bob" }, body })).status).toBe(200);
    const after = await query<{ event: string; description: string }>("select event, description from activity_log where id > $1 order by id", [before]);
    expect(after.map((r) => r.event)).toEqual(["user_groups_modified", "user_modified"]);
    expect(after[0].description).toBe("Groups of bob: ops");
    const mark = (await query<{ id: number }>("select max(id)::int id from activity_log"))[0].id;
    expect((await call(userPut, { method: "PUT", jar: admin, params: { username: "bob" }, body })).status).toBe(200);
    expect((await query<{ event: string }>("select event from activity_log where id > $1", [mark])).map((r) => r.event)).toEqual(["user_modified"]);
  });
});

describe("the migration of recorded events", () => {
  /** The custom part of the migration that renamed the events (found by content: files get renumbered). */
  function renameStatements(): string[] {
    const dir = fileURLToPath(new URL("../drizzle/", import.meta.url));
    const file = readdirSync(dir).find((f) => f.endsWith(".sql") && readFileSync(dir + f, "utf8").includes("activity-event-renames.json"));
    expect(file, "the migration that renames activity events").toBeTruthy();
    const sql = readFileSync(dir + file!, "utf8");
    return sql
      .slice(sql.indexOf("-- custom SQL (keep when regenerating)"))
      .split("--> statement-breakpoint")
      .map((s) => s.trim())
      .filter((s) => /\bUPDATE\b/i.test(s));
  }

  it("maps every old name once (no chains), and splits MFA sign-ins and admin MFA switch-offs out", async () => {
    await query("delete from activity_log");
    const old = [
      ["password_reset_requested", "Password reset sent to bob"],
      ["password_reset", "Password reset with an e-mailed link"],
      ["mfa_login_failed", null],
      ["groups_assigned", null],
      ["location_added", null],
      ["location_modified", null],
      ["location_removed", null],
      ["location_devices_imported", null],
      ["settings_changed", null],
      ["user_login", "Second factor: totp"],
      ["user_login", null],
      ["mfa_disabled", "MFA disabled for bob"],
      ["mfa_disabled", "MFA disabled"],
      ["user_added", null],
    ];
    for (const [event, description] of old) {
      await query("insert into activity_log (username, event, module, description) values ('root', $1, 'defguard', $2)", [event, description]);
    }
    for (const statement of renameStatements()) await query(statement);
    const rows = await query<{ event: string }>("select event from activity_log order by id");
    expect(rows.map((r) => r.event)).toEqual([
      "password_reset",
      "password_reset_completed",
      "user_mfa_login_failed",
      "groups_bulk_assigned",
      "vpn_location_added",
      "vpn_location_modified",
      "vpn_location_removed",
      "vpn_location_devices_imported",
      "settings_updated",
      "user_mfa_login",
      "user_login",
      "user_mfa_disabled",
      "mfa_disabled",
      "user_added",
    ]);
  });

  it("the mapping file and the migration agree", () => {
    const { renames } = JSON.parse(readFileSync(fileURLToPath(new URL("../scripts/activity-event-renames.json", import.meta.url)), "utf8")) as {
      renames: Record<string, string>;
    };
    const sql = renameStatements()[0];
    for (const [from, to] of Object.entries(renames)) expect(sql).toContain(`WHEN '${from}' THEN '${to}'`);
    expect(sql.match(/WHEN '/g)).toHaveLength(Object.keys(renames).length);
  });
});
