/**
 * A username changed in the console reaches LDAP (modifyDN) against a real slapd
 * (tests/slapd.ts): the entry is renamed under the same parent, keeps its password, the groups
 * naming it follow, the next sync sees nothing to do (nobody deleted or imported), and a rename
 * LDAP refuses or cannot take is rolled back in the console. Then the same with the Active
 * Directory-like schema (`ldap_uses_ad`): sAMAccountName follows, an entry named by its full
 * name keeps its DN, and a sAMAccountName another entry holds is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "ldapts";
import { PATCH as settingsPatch } from "@/app/api/v1/settings/route";
import { POST as ldapSync } from "@/app/api/v1/ldap/sync/route";
import { PUT as userPut } from "@/app/api/v1/user/[username]/route";
import { POST as authPost } from "@/app/api/v1/auth/route";
import { call, createUser, query, signIn, type Jar } from "@/tests/helpers";
import { ADMIN_DN, ADMIN_PASSWORD, GROUPS_DN, groupLdif, ldapTestSettings, slapdMissing, startSlapd, USERS_DN, userLdif, type Slapd } from "@/tests/slapd";

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
    const r = await c.search(d, { scope: "base", attributes: ["cn", "uid", "mail", "sAMAccountName"] }).catch(() => null);
    return r?.searchEntries[0] ?? null;
  });

const members = (url: string, group: string, attr = "uniqueMember") =>
  withAdmin(url, async (c) => {
    const r = await c.search(`cn=${group},${GROUPS_DN}`, { scope: "base", attributes: [attr] });
    const v = r.searchEntries[0]?.[attr];
    return (v === undefined ? [] : Array.isArray(v) ? v : [v]).map(String).sort();
  });

/** PUT /user/{from} with the new username, the rest unchanged (as the profile form sends it). */
async function renameAs(jar: Jar, from: string, to: string) {
  const [u] = await query<{ first_name: string; last_name: string; email: string }>("select first_name, last_name, email from users where username = $1", [from]);
  return call(userPut, { method: "PUT", path: `/api/v1/user/${from}`, jar, params: { username: from }, body: { username: to, first_name: u.first_name, last_name: u.last_name, email: u.email, phone: null } });
}

const syncNow = (jar: Jar) => call(ldapSync, { method: "POST", path: "/api/v1/ldap/sync", jar });
const NOTHING_TO_DO = { users_imported: 0, users_removed_console: 0, users_removed_ldap: 0, users_exported: 0, ldap_writes: 0, console_writes: 0 };
const lastLdapActivity = async () =>
  (await query<{ description: string }>("select description from activity_log where event = 'ldap_user_modified' order by id desc limit 1"))[0]?.description;

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
  const rename = (from: string, to: string) => renameAs(root, from, to);

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
      body: ldapTestSettings(slapd.url, "standard"),
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

describe.skipIf(Boolean(missing))("a console rename reaches LDAP with an Active Directory-like schema (slapd, ldap_uses_ad)", () => {
  let slapd: Slapd;
  let root: Jar;
  const FRANK_PW = "Frank-pass1!";
  const GRACE_DN = `cn=Grace Hopper,${USERS_DN}`;
  const rename = (from: string, to: string) => renameAs(root, from, to);

  beforeAll(async () => {
    const ldif = [
      // Named by the username (cn = sAMAccountName), as the console creates AD entries.
      userLdif({ uid: "frank", first: "Frank", last: "Poole", mail: "frank@example.org", password: FRANK_PW }, true),
      // Named by the full name, as AD's own tools create them: only sAMAccountName is the username.
      `dn: ${GRACE_DN}\nobjectClass: user\ncn: Grace Hopper\nsAMAccountName: grace\nsn: Hopper\ngivenName: Grace\nmail: grace@example.org\nuserPassword: Grace-pass1!\n`,
      groupLdif("crew", [dn("frank"), GRACE_DN], true),
    ].join("\n");
    slapd = await startSlapd({ ad: true, ldif });
    // The first block's users share this file's database: start from a console without them.
    await query("delete from ldap_users; delete from ldap_groups; delete from ldap_sync_state");
    await query("delete from users where username <> 'root'");
    root = await signIn("root");
    const patched = await call(settingsPatch, {
      method: "PATCH",
      path: "/api/v1/settings",
      jar: root,
      body: ldapTestSettings(slapd.url, "ad"),
    });
    expect(patched.status, patched.text).toBe(200);
    const first = await syncNow(root);
    expect(first.status, first.text).toBe(200);
    expect(first.json.summary).toMatchObject({ users_imported: 2 });
    expect((await query<{ username: string }>("select username from users where username <> 'root' order by 1")).map((u) => u.username)).toEqual(["frank", "grace"]);
  }, 60_000);

  afterAll(async () => {
    await slapd?.stop();
  });

  it("an entry named by the username: modifyDN, sAMAccountName follows, the group's member follows, the password still works, the next sync has nothing to do", async () => {
    const r = await rename("frank", "franklin");
    expect(r.status, r.text).toBe(200);
    expect(await entry(slapd.url, dn("frank"))).toBeNull();
    expect(await entry(slapd.url, dn("franklin"))).toMatchObject({ cn: "franklin", sAMAccountName: "franklin", mail: "frank@example.org" });
    expect(await members(slapd.url, "crew", "member")).toEqual([GRACE_DN, dn("franklin")].sort());
    expect(await canBind(slapd.url, dn("franklin"), FRANK_PW)).toBe(true);
    expect(await query("select dn from ldap_users where user_id = (select id from users where username = 'franklin')")).toEqual([{ dn: dn("franklin") }]);
    expect(await lastLdapActivity()).toBe(`Renamed LDAP entry ${dn("frank")} to ${dn("franklin")}; groups updated: crew`);
    // Signing in through LDAP finds the entry by its new sAMAccountName.
    const signin = await call(authPost, { method: "POST", path: "/api/v1/auth", body: { username: "franklin", password: FRANK_PW } });
    expect(signin.status, signin.text).toBe(200);

    const next = await syncNow(root);
    expect(next.status, next.text).toBe(200);
    expect(next.json.summary).toMatchObject(NOTHING_TO_DO);
    expect(await query("select username from users where email = 'frank@example.org'")).toEqual([{ username: "franklin" }]);
  });

  it("an entry named by the full name keeps its DN: only sAMAccountName changes, the groups need nothing, the next sync has nothing to do", async () => {
    const r = await rename("grace", "gracie");
    expect(r.status, r.text).toBe(200);
    expect(await entry(slapd.url, GRACE_DN)).toMatchObject({ cn: "Grace Hopper", sAMAccountName: "gracie" });
    expect(await members(slapd.url, "crew", "member")).toEqual([GRACE_DN, dn("franklin")].sort());
    expect(await query("select dn, base->>'username' username from ldap_users where user_id = (select id from users where username = 'gracie')")).toEqual([{ dn: GRACE_DN, username: "gracie" }]);
    expect(await lastLdapActivity()).toBe(`Changed the username in LDAP entry ${GRACE_DN} to gracie`);

    const next = await syncNow(root);
    expect(next.status, next.text).toBe(200);
    expect(next.json.summary).toMatchObject(NOTHING_TO_DO);
    expect(await query("select username from users where email = 'grace@example.org'")).toEqual([{ username: "gracie" }]);
  });

  it("a sAMAccountName another entry holds is refused with 400 and changes nothing on either side", async () => {
    // An account the console does not know yet (added after the last sync), under another DN.
    const IVAN_DN = `cn=Ivan Outside,${USERS_DN}`;
    await withAdmin(slapd.url, (c) => c.add(IVAN_DN, { objectClass: ["user"], cn: "Ivan Outside", sn: "Outside", sAMAccountName: "ivan", mail: "ivan@example.org" }));
    try {
      const r = await rename("gracie", "ivan");
      expect(r.status, r.text).toBe(400);
      expect(r.json.msg).toBe(`the new username could not be written to LDAP: the LDAP entry ${IVAN_DN} already has the username ivan (sAMAccountName)`);
      expect(await query("select 1 from users where username = 'gracie'")).toHaveLength(1);
      expect(await entry(slapd.url, GRACE_DN)).toMatchObject({ sAMAccountName: "gracie" });
      expect(await query("select dn from ldap_users where user_id = (select id from users where username = 'gracie')")).toEqual([{ dn: GRACE_DN }]);
      // The same refusal for an entry that modifyDN would rename (its DN is free, the name is not).
      const f = await rename("franklin", "ivan");
      expect(f.status, f.text).toBe(400);
      expect(await entry(slapd.url, dn("franklin"))).toMatchObject({ sAMAccountName: "franklin" });
      expect(await entry(slapd.url, dn("ivan"))).toBeNull();
    } finally {
      await withAdmin(slapd.url, (c) => c.del(IVAN_DN));
    }
  });
});
