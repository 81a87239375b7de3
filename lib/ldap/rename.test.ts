/**
 * A username changed in the console reaches LDAP (modifyDN) against a real slapd
 * (tests/slapd.ts): the entry is renamed under the same parent, keeps its password, the groups
 * naming it follow, the next sync sees nothing to do (nobody deleted or imported), and a rename
 * LDAP refuses or cannot take is rolled back in the console.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "ldapts";
import { PATCH as settingsPatch } from "@/app/api/v1/settings/route";
import { POST as ldapSync } from "@/app/api/v1/ldap/sync/route";
import { PUT as userPut } from "@/app/api/v1/user/[username]/route";
import { call, createUser, query, signIn, type Jar } from "@/tests/helpers";
import { ADMIN_DN, ADMIN_PASSWORD, GROUPS_DN, groupLdif, slapdMissing, startSlapd, USERS_DN, userLdif, type Slapd } from "@/tests/slapd";

const missing = slapdMissing();
if (missing) console.log(`[lib/ldap/rename.test.ts] skipped: ${missing}`);

const ALICE_PW = "Alice-pass1!";
const dn = (cn: string) => `cn=${cn},${USERS_DN}`;

async function withAdmin<T>(url: string, fn: (c: Client) => Promise<T>): Promise<T> {
  const c = new Client({ url, strictDN: false });
  await c.bind(ADMIN_DN, ADMIN_PASSWORD);
  try {
    return await fn(c);
  } finally {
    await c.unbind().catch(() => {});
  }
}

const entry = (url: string, d: string) =>
  withAdmin(url, async (c) => {
    const r = await c.search(d, { scope: "base", attributes: ["cn", "uid", "mail"] }).catch(() => null);
    return r?.searchEntries[0] ?? null;
  });

const members = (url: string, group: string) =>
  withAdmin(url, async (c) => {
    const r = await c.search(`cn=${group},${GROUPS_DN}`, { scope: "base", attributes: ["uniqueMember"] });
    const v = r.searchEntries[0]?.uniqueMember;
    return (v === undefined ? [] : Array.isArray(v) ? v : [v]).map(String).sort();
  });

async function canBind(url: string, d: string, password: string): Promise<boolean> {
  const c = new Client({ url });
  try {
    await c.bind(d, password);
    return true;
  } catch {
    return false;
  } finally {
    await c.unbind().catch(() => {});
  }
}

describe.skipIf(Boolean(missing))("a console rename reaches LDAP (slapd)", () => {
  let slapd: Slapd;
  let root: Jar;
  const rename = async (from: string, to: string) => {
    const [u] = await query<{ first_name: string; last_name: string; email: string }>("select first_name, last_name, email from users where username = $1", [from]);
    return call(userPut, { method: "PUT", path: `/api/v1/user/${from}`, jar: root, params: { username: from }, body: { username: to, first_name: u.first_name, last_name: u.last_name, email: u.email, phone: null } });
  };

  beforeAll(async () => {
    const ldif = [
      userLdif({ uid: "alice", first: "Alice", last: "Liddell", mail: "alice@example.org", password: ALICE_PW }),
      userLdif({ uid: "bob", first: "Bob", last: "Builder", mail: "bob@example.org", password: "Bob-pass1!" }),
      groupLdif("devs", [dn("alice"), dn("bob")]),
    ].join("\n");
    slapd = await startSlapd({ ldif });
    await createUser({ username: "root", isAdmin: true, email: "root@example.com" });
    root = await signIn("root");
    const patched = await call(settingsPatch, {
      method: "PATCH",
      path: "/api/v1/settings",
      jar: root,
      body: {
        ldap_enabled: true,
        ldap_sync_enabled: true,
        ldap_url: slapd.url,
        ldap_bind_username: ADMIN_DN,
        ldap_bind_password: ADMIN_PASSWORD,
        ldap_user_search_base: USERS_DN,
        ldap_group_search_base: GROUPS_DN,
        ldap_user_obj_class: "inetOrgPerson",
        ldap_user_auxiliary_obj_classes: [],
        ldap_sync_groups: [],
        ldap_uses_ad: false,
        ldap_group_obj_class: "groupOfUniqueNames",
        ldap_username_attr: "cn",
        ldap_user_rdn_attr: "",
        ldap_groupname_attr: "cn",
        ldap_group_member_attr: "uniqueMember",
        ldap_member_attr: "memberOf",
      },
    });
    expect(patched.status, patched.text).toBe(200);
    const first = await call(ldapSync, { method: "POST", path: "/api/v1/ldap/sync", jar: root });
    expect(first.status, first.text).toBe(200);
    expect(first.json.summary).toMatchObject({ users_imported: 2 });
  }, 60_000);

  afterAll(async () => {
    await slapd?.stop();
  });

  it("renames the entry (modifyDN), keeps its password, updates the groups, and the next sync has nothing to do", async () => {
    const r = await rename("alice", "alicia");
    expect(r.status, r.text).toBe(200);
    expect(await entry(slapd.url, dn("alice"))).toBeNull();
    const moved = await entry(slapd.url, dn("alicia"));
    expect(moved).toMatchObject({ cn: "alicia", mail: "alice@example.org" });
    expect(await canBind(slapd.url, dn("alicia"), ALICE_PW)).toBe(true);
    expect(await members(slapd.url, "devs")).toEqual([dn("alicia"), dn("bob")]);
    expect(await query("select dn from ldap_users where user_id = (select id from users where username = 'alicia')")).toEqual([{ dn: dn("alicia") }]);
    const [log] = await query<{ description: string }>("select description from activity_log where event = 'ldap_user_modified' order by id desc limit 1");
    expect(log.description).toBe(`Renamed LDAP entry ${dn("alice")} to ${dn("alicia")}; groups updated: devs`);

    const next = await call(ldapSync, { method: "POST", path: "/api/v1/ldap/sync", jar: root });
    expect(next.status, next.text).toBe(200);
    expect(next.json.summary).toMatchObject({ users_imported: 0, users_removed_console: 0, users_removed_ldap: 0, users_exported: 0, ldap_writes: 0, console_writes: 0 });
    expect(await query("select username from users where email = 'alice@example.org'")).toEqual([{ username: "alicia" }]);
    const devs = await query<{ username: string }>("select u.username from group_users gu join groups g on g.id = gu.group_id join users u on u.id = gu.user_id where g.name = 'devs' order by 1");
    expect(devs.map((d) => d.username)).toEqual(["alicia", "bob"]);
  });

  it("a rename LDAP refuses (the name is taken there) is rolled back in the console", async () => {
    await withAdmin(slapd.url, (c) => c.add(dn("robert"), { objectClass: ["inetOrgPerson"], cn: "robert", sn: "Other", mail: "robert@elsewhere.org" }));
    const r = await rename("bob", "robert");
    expect(r.status).toBe(400);
    expect(r.json.msg).toMatch(/^the new username could not be written to LDAP: /);
    expect(await query("select 1 from users where username = 'bob'")).toHaveLength(1);
    expect(await entry(slapd.url, dn("bob"))).not.toBeNull();
    expect(await members(slapd.url, "devs")).toEqual([dn("alicia"), dn("bob")]);
    await withAdmin(slapd.url, (c) => c.del(dn("robert")));
  });

  it("a rename while LDAP cannot be reached is refused with 503 and changes nothing", async () => {
    const port = Number(new URL(slapd.url).port);
    await query("update settings set ldap_url = $1", [`ldap://127.0.0.1:${port === 65535 ? 1 : port + 1}`]);
    const r = await rename("bob", "bobby");
    expect(r.status).toBe(503);
    expect(r.json.msg).toMatch(/could not be written to LDAP: .*connection refused/);
    expect(await query("select 1 from users where username = 'bob'")).toHaveLength(1);
    await query("update settings set ldap_url = $1", [slapd.url]);
    expect(await entry(slapd.url, dn("bob"))).not.toBeNull();
  });

  it("a console user without an LDAP entry is renamed without LDAP", async () => {
    await query("update settings set ldap_sync_enabled = false");
    await createUser({ username: "local1", email: "local1@example.com" });
    const r = await rename("local1", "local2");
    expect(r.status, r.text).toBe(200);
    expect(await entry(slapd.url, dn("local2"))).toBeNull();
  });
});
