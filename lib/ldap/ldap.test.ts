/**
 * LDAP against a real slapd (tests/slapd.ts): the connection test and its errors in words,
 * sign-in through LDAP (creating the user), the two-way sync (import, export, membership both
 * ways, attribute changes, deletions, a no-change run with zero writes, a failing run that
 * changes nothing), password write-back; then the same with an Active Directory-like schema.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Attribute, Change, Client } from "ldapts";
import { GET as ldapTest } from "@/app/api/v1/ldap/test/route";
import { GET as ldapStatusGet } from "@/app/api/v1/ldap/status/route";
import { POST as ldapSync } from "@/app/api/v1/ldap/sync/route";
import { PATCH as settingsPatch } from "@/app/api/v1/settings/route";
import { POST as authPost } from "@/app/api/v1/auth/route";
import { POST as memberAdd } from "@/app/api/v1/group/[name]/route";
import { DELETE as userDelete, GET as userGet } from "@/app/api/v1/user/[username]/route";
import { PUT as passwordPut } from "@/app/api/v1/user/[username]/password/route";
import { call, createUser, query, signIn, type Jar } from "@/tests/helpers";
import { makeTestPki, type TestPki } from "@/tests/tls";
import { ADMIN_DN, ADMIN_PASSWORD, GROUPS_DN, groupLdif, ldapTestSettings, slapdMissing, startSlapd, USERS_DN, userLdif, type Slapd } from "@/tests/slapd";

const missing = slapdMissing();
if (missing) console.log(`[lib/ldap/ldap.test.ts] skipped: ${missing}`);

const ALICE_PW = "Alice-pass1!";
const BOB_PW = "Bob-pass1!";

const patch = (jar: Jar, body: unknown) => call(settingsPatch, { method: "PATCH", path: "/api/v1/settings", jar, body });
const test = (jar: Jar) => call(ldapTest, { path: "/api/v1/ldap/test", jar });
const sync = (jar: Jar) => call(ldapSync, { method: "POST", path: "/api/v1/ldap/sync", jar });
const status = (jar: Jar) => call(ldapStatusGet, { path: "/api/v1/ldap/status", jar });
const auth = (username: string, password: string) => call(authPost, { method: "POST", path: "/api/v1/auth", body: { username, password } });

async function admin(url: string): Promise<Client> {
  const c = new Client({ url, strictDN: false });
  await c.bind(ADMIN_DN, ADMIN_PASSWORD);
  return c;
}

async function canBind(url: string, dn: string, password: string): Promise<boolean> {
  const c = new Client({ url });
  try {
    await c.bind(dn, password);
    return true;
  } catch {
    return false;
  } finally {
    await c.unbind().catch(() => {});
  }
}

async function ldapMembers(url: string, group: string, attr: string): Promise<string[]> {
  const c = await admin(url);
  try {
    const r = await c.search(`cn=${group},${GROUPS_DN}`, { scope: "base", attributes: [attr] }).catch(() => null);
    const v = r?.searchEntries[0]?.[attr];
    return (v === undefined ? [] : Array.isArray(v) ? v : [v]).map(String).sort();
  } finally {
    await c.unbind();
  }
}

async function consoleMembers(group: string): Promise<string[]> {
  const rows = await query<{ username: string }>(
    "select u.username from group_users gu join groups g on g.id = gu.group_id join users u on u.id = gu.user_id where g.name = $1 order by 1",
    [group],
  );
  return rows.map((r) => r.username);
}

async function consoleUser(username: string) {
  const [u] = await query<{ id: number; email: string; first_name: string; last_name: string; ldap_pass_requires_change: boolean }>(
    "select id, email, first_name, last_name, ldap_pass_requires_change from users where username = $1",
    [username],
  );
  return u;
}

const dn = (uid: string) => `cn=${uid},${USERS_DN}`;

describe.skipIf(Boolean(missing))("LDAP with the standard schema (slapd)", () => {
  let slapd: Slapd;
  let tlsSlapd: Slapd;
  let pki: TestPki;
  let root: Jar;
  const settings = (url: string) =>
    ldapTestSettings(url, "standard", { ldap_use_starttls: false, ldap_tls_verify_cert: true, ldap_is_authoritative: false });

  beforeAll(async () => {
    pki = makeTestPki();
    const ldif = [
      userLdif({ uid: "alice", first: "Alice", last: "Liddell", mail: "alice@example.org", password: ALICE_PW }),
      userLdif({ uid: "bob", first: "Bob", last: "Builder", mail: "bob@example.org", password: BOB_PW, phone: "+48 123 456 789" }),
      userLdif({ uid: "carol", first: "Carol", last: "Singer", mail: "carol@example.org", password: "Carol-pass1!" }),
      groupLdif("devs", [dn("alice"), dn("bob")]),
      groupLdif("ops", [dn("carol")]),
    ].join("\n");
    [slapd, tlsSlapd] = await Promise.all([startSlapd({ ldif }), startSlapd({ ldif, tls: { cert: pki.serverCert, key: pki.serverKey } })]);
    await createUser({ username: "root", isAdmin: true, email: "root@example.com" });
    root = await signIn("root");
  }, 60_000);

  afterAll(async () => {
    await slapd?.stop();
    await tlsSlapd?.stop();
    pki?.cleanup();
  });

  it("says LDAP is not configured before it is, and a sync then changes nothing", async () => {
    const r = await test(root);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ ok: false, kind: "not_configured", msg: "LDAP URL is not set" });
    const s = await sync(root);
    expect(s.status).toBe(400);
    expect(s.json).toMatchObject({ ok: false, kind: "not_configured" });
  });

  it("refuses an invalid LDAP URL with a 400 naming the field, and changes nothing", async () => {
    const r = await patch(root, { ldap_url: "http://ldap.example.org" });
    expect(r.status).toBe(400);
    expect(r.json.field).toBe("ldap_url");
    const [s] = await query<{ ldap_url: string | null }>("select ldap_url from settings");
    expect(s.ldap_url).toBeNull();
  });

  it("reports connect, bind and search separately, with the errors in words", async () => {
    expect((await patch(root, settings(slapd.url))).status).toBe(200);
    const ok = await test(root);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json).toMatchObject({ ok: true, connect: { ok: true }, bind: { ok: true }, search: { ok: true, users: 3, groups: 2 } });

    await patch(root, { ldap_bind_password: "wrong" });
    const bad = await test(root);
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ ok: false, kind: "bind_refused", connect: { ok: true }, bind: { ok: false } });
    expect(bad.json.msg).toMatch(/refused the bind: wrong bind DN or password/);

    await patch(root, { ldap_bind_password: ADMIN_PASSWORD, ldap_user_search_base: `ou=nobody,${GROUPS_DN.replace("ou=groups,", "")}` });
    const none = await test(root);
    expect(none.status).toBe(400);
    expect(none.json.kind).toBe("search_failed");
    await patch(root, { ldap_user_search_base: GROUPS_DN });
    const empty = await test(root);
    expect(empty.json).toMatchObject({ kind: "no_users", search: { ok: false, users: 0 } });
    expect(empty.json.msg).toMatch(/^no users matched/);

    const port = Number(new URL(slapd.url).port);
    await patch(root, { ldap_user_search_base: USERS_DN, ldap_url: `ldap://127.0.0.1:${port === 65535 ? 1 : port + 1}` });
    const down = await test(root);
    expect(down.status).toBe(400);
    expect(down.json).toMatchObject({ kind: "unreachable", connect: { ok: false }, bind: { ok: false } });
    expect(down.json.msg).toMatch(/cannot reach the LDAP server 127\.0\.0\.1:\d+: connection refused/);
  });

  it("tells an untrusted certificate apart, and connects with verification off or StartTLS", async () => {
    await patch(root, { ldap_url: tlsSlapd.ldapsUrl, ldap_tls_verify_cert: true });
    const untrusted = await test(root);
    expect(untrusted.status).toBe(400);
    expect(untrusted.json.kind).toBe("certificate");
    expect(untrusted.json.msg).toMatch(/certificate of localhost:\d+ is not valid/);

    await patch(root, { ldap_tls_verify_cert: false });
    expect((await test(root)).json).toMatchObject({ ok: true });

    await patch(root, { ldap_url: tlsSlapd.url, ldap_use_starttls: true, ldap_tls_verify_cert: true });
    expect((await test(root)).json.kind).toBe("certificate");
    await patch(root, { ldap_tls_verify_cert: false });
    expect((await test(root)).json).toMatchObject({ ok: true, connect: { ok: true } });
    await patch(root, settings(slapd.url));
  });

  it("signs in a user who is not local through LDAP, creating them with their groups", async () => {
    const wrong = await auth("alice", "Not-her-pass1!");
    expect(wrong.status).toBe(401);
    expect(await consoleUser("alice")).toBeUndefined();

    const r = await auth("alice", ALICE_PW);
    expect(r.status, r.text).toBe(200);
    const u = await consoleUser("alice");
    expect(u).toMatchObject({ email: "alice@example.org", first_name: "Alice", last_name: "Liddell" });
    expect(await consoleMembers("devs")).toEqual(["alice"]);
    const [log] = await query<{ description: string }>("select description from activity_log where event = 'user_added' order by id desc limit 1");
    expect(log.description).toMatch(/Imported user alice from LDAP at sign-in/);
  });

  it("imports users and memberships, exports console users, and a second run writes nothing", async () => {
    const first = await sync(root);
    expect(first.status, first.text).toBe(200);
    expect(first.json.summary).toMatchObject({ users_imported: 2, users_exported: 1 });
    expect((await consoleUser("bob"))?.email).toBe("bob@example.org");
    expect(await consoleMembers("devs")).toEqual(["alice", "bob"]);
    expect(await consoleMembers("ops")).toEqual(["carol"]);
    // root was exported with a random password, so it must change it (written at next sign-in).
    expect((await consoleUser("root")).ldap_pass_requires_change).toBe(true);
    // root is in the console's admin group: the group appears in LDAP with root as member.
    expect(await ldapMembers(slapd.url, "admin", "uniqueMember")).toEqual([dn("root")]);

    const again = await sync(root);
    expect(again.status).toBe(200);
    expect(again.json.summary.ldap_writes).toBe(0);
    expect(again.json.summary.console_writes).toBe(0);

    const st = await status(root);
    expect(st.json).toMatchObject({ configured: true, last_ok: true, last_error: null });
    expect(st.json.last_run_at).toBeTruthy();
  });

  it("writes root's password to LDAP at sign-in when the sync had set a random one", async () => {
    expect(await canBind(slapd.url, dn("root"), "Passw0rd!x")).toBe(false);
    await signIn("root");
    expect(await canBind(slapd.url, dn("root"), "Passw0rd!x")).toBe(true);
    expect((await consoleUser("root")).ldap_pass_requires_change).toBe(false);
  });

  it("copies group membership both ways", async () => {
    // Console → LDAP.
    const added = await call(memberAdd, { method: "POST", path: "/api/v1/group/devs", jar: root, params: { name: "devs" }, body: { username: "carol" } });
    expect(added.status, added.text).toBe(200);
    // LDAP → console.
    const c = await admin(slapd.url);
    await c.modify(`cn=ops,${GROUPS_DN}`, new Change({ operation: "add", modification: new Attribute({ type: "uniqueMember", values: [dn("bob")] }) }));
    await c.modify(`cn=devs,${GROUPS_DN}`, new Change({ operation: "delete", modification: new Attribute({ type: "uniqueMember", values: [dn("alice")] }) }));
    await c.unbind();

    const r = await sync(root);
    expect(r.status, r.text).toBe(200);
    expect(await ldapMembers(slapd.url, "devs", "uniqueMember")).toEqual([dn("bob"), dn("carol")].sort());
    expect(await consoleMembers("devs")).toEqual(["bob", "carol"]);
    expect(await consoleMembers("ops")).toEqual(["bob", "carol"]);
    const logs = await query<{ event: string; description: string }>("select event, description from activity_log where username = 'ldap-sync' order by id desc limit 10");
    expect(logs.map((l) => l.description)).toEqual(
      expect.arrayContaining([expect.stringMatching(/added carol to LDAP group devs/), expect.stringMatching(/removed alice from group devs/), expect.stringMatching(/added bob to group ops/)]),
    );
    expect((await sync(root)).json.summary).toMatchObject({ ldap_writes: 0, console_writes: 0 });
  });

  it("merges attribute changes, the authority deciding a conflict", async () => {
    const c = await admin(slapd.url);
    await c.modify(dn("bob"), new Change({ operation: "replace", modification: new Attribute({ type: "givenName", values: ["Robert"] }) }));
    await query("update users set last_name = 'Constructor' where username = 'bob'");
    // Both changed: the console is the authority (LDAP is not).
    await c.modify(dn("carol"), new Change({ operation: "replace", modification: new Attribute({ type: "sn", values: ["FromLdap"] }) }));
    await query("update users set last_name = 'FromConsole' where username = 'carol'");
    await sync(root);
    expect(await consoleUser("bob")).toMatchObject({ first_name: "Robert", last_name: "Constructor" });
    const r = await c.search(dn("bob"), { scope: "base", attributes: ["sn"] });
    expect(r.searchEntries[0].sn).toBe("Constructor");
    const carol = await c.search(dn("carol"), { scope: "base", attributes: ["sn"] });
    expect(carol.searchEntries[0].sn).toBe("FromConsole");

    // Now LDAP is the authority.
    await patch(root, { ldap_is_authoritative: true });
    await c.modify(dn("carol"), new Change({ operation: "replace", modification: new Attribute({ type: "sn", values: ["LdapWins"] }) }));
    await query("update users set last_name = 'ConsoleLoses' where username = 'carol'");
    await sync(root);
    expect((await consoleUser("carol")).last_name).toBe("LdapWins");
    await c.unbind();
    await patch(root, { ldap_is_authoritative: false });
  });

  it("writes an admin's password change for a user to LDAP", async () => {
    const r = await call(passwordPut, { method: "PUT", path: "/api/v1/user/bob/password", jar: root, params: { username: "bob" }, body: { new_password: "Bob-newpass2!" } });
    expect(r.status, r.text).toBe(200);
    expect(await canBind(slapd.url, dn("bob"), "Bob-newpass2!")).toBe(true);
    expect(await canBind(slapd.url, dn("bob"), BOB_PW)).toBe(false);
    // LDAP's password counts at sign-in: the old one is refused even if it was the local one.
    expect((await auth("bob", BOB_PW)).status).toBe(401);
    expect((await auth("bob", "Bob-newpass2!")).status).toBe(200);
  });

  it("propagates deletions both ways", async () => {
    const c = await admin(slapd.url);
    await c.del(dn("carol"));
    await c.unbind();
    const del = await call(userDelete, { method: "DELETE", path: "/api/v1/user/alice", jar: root, params: { username: "alice" } });
    expect(del.status, del.text).toBe(200);
    const r = await sync(root);
    expect(r.json.summary).toMatchObject({ users_removed_console: 1, users_removed_ldap: 1 });
    expect(await consoleUser("carol")).toBeUndefined();
    expect(await canBind(slapd.url, dn("alice"), ALICE_PW)).toBe(false);
    const gone = await call(userGet, { path: "/api/v1/user/carol", jar: root, params: { username: "carol" } });
    expect(gone.status).toBe(404);
    expect((await sync(root)).json.summary).toMatchObject({ ldap_writes: 0, console_writes: 0 });
  });

  it("a failing sync changes nothing and is recorded for the screen", async () => {
    const before = await query<{ n: number }>("select count(*)::int n from users");
    const c = await admin(slapd.url);
    await c.modify(dn("bob"), new Change({ operation: "replace", modification: new Attribute({ type: "givenName", values: ["Bobby"] }) }));
    await c.unbind();
    await patch(root, { ldap_bind_password: "wrong" });
    const r = await sync(root);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ ok: false, kind: "bind_refused" });
    expect((await consoleUser("bob")).first_name).toBe("Robert");
    expect(await query<{ n: number }>("select count(*)::int n from users")).toEqual(before);
    const st = await status(root);
    expect(st.json).toMatchObject({ last_ok: false, last_error_kind: "bind_refused" });
    await patch(root, { ldap_bind_password: ADMIN_PASSWORD });
    expect((await sync(root)).status).toBe(200);
    expect((await consoleUser("bob")).first_name).toBe("Bobby");
  });
});

describe.skipIf(Boolean(missing))("LDAP with an Active Directory-like schema (slapd)", () => {
  let slapd: Slapd;
  let root: Jar;

  beforeAll(async () => {
    const ldif = [
      // AD keeps memberOf on the user: "pilots" is only there, so it shows the sign-in reads it.
      userLdif({ uid: "dave", first: "Dave", last: "Lister", mail: "dave@example.org", password: "Dave-pass1!", memberOf: [`cn=crew,${GROUPS_DN}`, `cn=pilots,${GROUPS_DN}`] }, true),
      userLdif({ uid: "erin", first: "Erin", last: "Brock", mail: "erin@example.org", password: "Erin-pass1!" }, true),
      groupLdif("crew", [dn("dave"), dn("erin")], true),
    ].join("\n");
    slapd = await startSlapd({ ad: true, ldif });
    // The first block's users share this file's database: start from an empty console.
    await query("delete from ldap_users; delete from ldap_groups; delete from ldap_sync_state");
    await query("delete from users where username <> 'root'");
    root = await signIn("root", "Passw0rd!x");
    const r = await patch(root, ldapTestSettings(slapd.url, "ad", { ldap_sync_groups: ["crew"] }));
    expect(r.status, r.text).toBe(200);
  }, 60_000);

  afterAll(async () => {
    await slapd?.stop();
  });

  it("tests the connection and signs in by sAMAccountName", async () => {
    expect((await test(root)).json).toMatchObject({ ok: true, search: { users: 2, groups: 1 } });
    const r = await auth("dave", "Dave-pass1!");
    expect(r.status, r.text).toBe(200);
    expect(await consoleMembers("crew")).toEqual(["dave"]);
    expect(await consoleMembers("pilots")).toEqual(["dave"]);
  });

  it("imports only members of the sync groups, keeps membership both ways and writes unicodePwd", async () => {
    const first = await sync(root);
    expect(first.status, first.text).toBe(200);
    // root is not in "crew", so it is out of scope and not exported.
    expect(first.json.summary).toMatchObject({ users_imported: 1, users_exported: 0 });
    expect(await consoleMembers("crew")).toEqual(["dave", "erin"]);

    const removed = await query("delete from group_users where user_id = (select id from users where username = 'erin') returning 1");
    expect(removed.length).toBe(1);
    await sync(root);
    expect(await ldapMembers(slapd.url, "crew", "member")).toEqual([dn("dave")]);

    const r = await call(passwordPut, { method: "PUT", path: "/api/v1/user/dave/password", jar: root, params: { username: "dave" }, body: { new_password: "Dave-newpass2!" } });
    expect(r.status, r.text).toBe(200);
    const c = await admin(slapd.url);
    const e = await c.search(dn("dave"), { scope: "base", attributes: ["unicodePwd"], explicitBufferAttributes: ["unicodePwd"] });
    await c.unbind();
    expect((e.searchEntries[0].unicodePwd as Buffer).equals(Buffer.from('"Dave-newpass2!"', "utf16le"))).toBe(true);
    expect((await sync(root)).json.summary).toMatchObject({ ldap_writes: 0, console_writes: 0 });
  });
});
