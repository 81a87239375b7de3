/**
 * Directory sync against local stand-ins of Google Workspace, Entra ID, Okta and JumpCloud
 * (tests/directory-standins.ts speaks their request and answer shapes), applied to the real
 * database: who is disabled, deleted, created, and which groups people are in.
 */
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GET as testDirsyncGet } from "@/app/api/v1/test_directory_sync/route";
import { POST as syncNowPost } from "@/app/api/v1/directory_sync/route";
import { call, createUser, query, signIn, type Handler, type Jar } from "@/tests/helpers";
import { startDirectoryStandIns, type DirectoryData, type StandIns } from "@/tests/directory-standins";
import { SYSTEM_ACTOR } from "../../activity/service";
import { providerSchema } from "../schema";
import { saveProvider } from "../service";
import { setDirectoryEndpointsForTests } from "./http";
import { directorySyncJob, runDirectorySync, SYNC_NOW_MSG, syncGroupsAtSignIn } from "./sync";

const DATA: DirectoryData = {
  people: [
    { email: "alice@corp.example", given: "Alice", family: "Archer", active: true },
    { email: "bob@corp.example", given: "Bob", family: "Baker", active: false },
    { email: "carol@corp.example", given: "Carol", family: "Cook", active: true },
    { email: "erin@corp.example", given: "Erin", family: "Evans", active: true },
    { email: "frank@corp.example", given: "Frank", family: "Fox", active: true },
  ],
  groups: { engineering: ["alice@corp.example", "carol@corp.example", "erin@corp.example"], sales: ["bob@corp.example"], "vpn-users": ["alice@corp.example"] },
};

let s: StandIns;
let admin: Jar;

type Preset = "Google" | "Microsoft" | "Okta" | "JumpCloud";

function configFor(name: Preset, extra: Record<string, unknown> = {}) {
  const base = { name, client_id: "login-client", client_secret: "login-secret", directory_sync_enabled: true, directory_sync_interval: 600, directory_sync_target: "all", directory_sync_user_behavior: "disable", directory_sync_admin_behavior: "keep", create_account: true, username_handling: "RemoveForbidden" };
  const per: Record<Preset, Record<string, unknown>> = {
    Google: { base_url: "https://accounts.google.com", google_service_account_key: JSON.stringify({ type: "service_account", private_key: s.google.privateKeyPem, client_email: s.google.serviceAccountEmail }), admin_email: s.google.adminEmail },
    Microsoft: { base_url: `https://login.microsoftonline.com/${s.microsoft.tenant}/v2.0`, client_id: s.microsoft.clientId, client_secret: s.microsoft.clientSecret },
    Okta: { base_url: s.okta.base, okta_dirsync_client_id: s.okta.clientId, okta_private_jwk: s.okta.privateJwk },
    JumpCloud: { base_url: "https://oauth.id.jumpcloud.com/", jumpcloud_api_key: s.jumpcloud.apiKey },
  };
  return providerSchema.parse({ ...base, ...per[name], ...extra });
}

async function configure(name: Preset, extra: Record<string, unknown> = {}) {
  await saveProvider(SYSTEM_ACTOR, configFor(name, extra));
}

/** The console before each sync: the admin, four people (one not in the directory), two groups. */
async function seedConsole() {
  await query("delete from users where username <> 'root'");
  await query("delete from groups where name not in ('admin')");
  await query("delete from openid_provider");
  await query("delete from activity_log where username = 'directory sync'");
  await createUser({ username: "alice", email: "Alice@corp.example", groups: ["local", "sales"] });
  await createUser({ username: "bob", email: "bob@corp.example" });
  await createUser({ username: "carol", email: "carol@corp.example", isActive: false });
  await createUser({ username: "dave", email: "dave@corp.example", groups: ["engineering"] });
}

const membership = async () =>
  (await query<{ u: string; g: string }>("select u.username u, g.name g from group_users gu join users u on u.id = gu.user_id join groups g on g.id = gu.group_id order by 1, 2")).map((r) => `${r.u}:${r.g}`);
const states = async () => Object.fromEntries((await query<{ username: string; is_active: boolean }>("select username, is_active from users order by username")).map((r) => [r.username, r.is_active]));

beforeAll(async () => {
  s = await startDirectoryStandIns(structuredClone(DATA));
  setDirectoryEndpointsForTests({ googleToken: `${s.url}/google/token`, googleAdmin: s.url, microsoftLogin: s.url, microsoftGraph: s.url, jumpcloud: s.url });
  await createUser({ username: "root", email: "root@console.example", isAdmin: true });
  admin = await signIn("root");
});

afterAll(async () => {
  setDirectoryEndpointsForTests();
  await s?.close();
});

beforeEach(async () => {
  s.data = structuredClone(DATA);
  s.seen.length = 0;
  await seedConsole();
});

describe.each(["Google", "Microsoft", "Okta", "JumpCloud"] as const)("%s", (name) => {
  it("test_directory_sync reaches the directory and says what it sees", async () => {
    await configure(name);
    const res = await call(testDirsyncGet as Handler, { jar: admin });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ success: true, users: 5, groups: 3 });
    expect(res.json.message).toMatch(/^Connection successful/);
  });

  it("syncs states and groups, one activity entry per change, and a second run changes nothing", async () => {
    await configure(name);
    const first = await runDirectorySync();
    expect(await states()).toEqual({ alice: true, bob: false, carol: true, dave: false, root: true });
    expect(await membership()).toEqual([
      "alice:engineering",
      "alice:local",
      "alice:vpn-users",
      "bob:sales",
      "carol:engineering",
      // dave is not in the directory: disabled, his memberships are not the directory's business
      "dave:engineering",
      "root:admin",
    ]);
    // bob disabled, carol enabled, dave disabled; vpn-users created; alice +engineering +vpn-users
    // -sales; bob +sales; carol +engineering.
    expect(first.changes).toBe(9);
    const log = await query<{ event: string; username: string }>("select event, username from activity_log where username = 'directory sync' order by id");
    expect(log).toHaveLength(9);
    expect(log.map((l) => l.event).sort()).toEqual(["group_added", "group_member_added", "group_member_added", "group_member_added", "group_member_added", "group_member_removed", "user_disabled", "user_disabled", "user_enabled"]);
    const [status] = await query<{ last_sync_ok: boolean; last_sync_result: string }>("select last_sync_ok, last_sync_result from openid_provider");
    expect(status.last_sync_ok).toBe(true);
    expect(status.last_sync_result).toMatch(/^5 users and 3 groups read from the directory; 9 changes/);
    const second = await runDirectorySync();
    expect(second.changes).toBe(0);
    // The provider's own authentication was used on every API call.
    const api = s.seen.filter((r) => !/token$/.test(r.path));
    expect(api.length).toBeGreaterThan(4);
    for (const r of api) {
      if (name === "JumpCloud") expect(r.apiKey).toBe(s.jumpcloud.apiKey);
      else expect(r.auth).toMatch(/^Bearer \S+/);
    }
  });
});

describe.each(["Google", "Microsoft", "Okta", "JumpCloud"] as const)("%s: group sync at sign-in", (name) => {
  const idOf = async (username: string) => (await query<{ id: number }>("select id from users where username = $1", [username]))[0].id;

  it("the signing-in person's memberships follow the directory; nobody else's change", async () => {
    await configure(name, { directory_sync_target: "groups" });
    s.seen.length = 0;
    // alice: console groups local + sales; directory groups engineering + vpn-users.
    expect(await syncGroupsAtSignIn(await idOf("alice"))).toBe(4);
    expect(await membership()).toEqual(["alice:engineering", "alice:local", "alice:vpn-users", "dave:engineering", "root:admin"]);
    const log = await query<{ event: string; description: string }>("select event, description from activity_log where username = 'directory sync' order by id");
    expect(log.map((l) => l.event).sort()).toEqual(["group_added", "group_member_added", "group_member_added", "group_member_removed"]);
    expect(log.every((l) => l.event === "group_added" || l.description.endsWith("(directory, at sign-in)"))).toBe(true);
    // One person's lookup, not the whole directory's membership lists.
    expect(s.seen.some((r) => /\/(members|users)$/.test(r.path) && /groups\/|usergroups\//.test(r.path))).toBe(false);
    // Nothing left to change; states are not the sign-in's business.
    expect(await syncGroupsAtSignIn(await idOf("alice"))).toBe(0);
    expect(await states()).toEqual({ alice: true, bob: true, carol: false, dave: true, root: true });
  });

  it("leaves someone the directory does not know alone, and does nothing for target users", async () => {
    await configure(name, { directory_sync_target: "all" });
    expect(await syncGroupsAtSignIn(await idOf("dave"))).toBeNull();
    await configure(name, { directory_sync_target: "users" });
    s.seen.length = 0;
    expect(await syncGroupsAtSignIn(await idOf("alice"))).toBeNull();
    expect(s.seen).toHaveLength(0);
    expect(await membership()).toEqual(["alice:local", "alice:sales", "dave:engineering", "root:admin"]);
  });
});

describe("rules", () => {
  it("refused credentials are reported in words, and a failed sync changes nothing", async () => {
    await configure("JumpCloud", { jumpcloud_api_key: "wrong-key" });
    const test = await call(testDirsyncGet as Handler, { jar: admin });
    expect(test.json.success).toBe(false);
    expect(test.json.message).toMatch(/JumpCloud users: the credentials were refused \(HTTP 401/);
    const before = { states: await states(), membership: await membership() };
    await expect(runDirectorySync()).rejects.toThrow(/credentials were refused/);
    expect({ states: await states(), membership: await membership() }).toEqual(before);
    const [status] = await query<{ last_sync_ok: boolean; last_sync_error: string }>("select last_sync_ok, last_sync_error from openid_provider");
    expect(status).toEqual({ last_sync_ok: false, last_sync_error: expect.stringMatching(/credentials were refused/) });
  });

  it("an unreachable provider is said to be unreachable", async () => {
    // A port that was just free: nothing listens there.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, "127.0.0.1", r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    await configure("Okta", { base_url: `http://127.0.0.1:${port}` });
    const test = await call(testDirsyncGet as Handler, { jar: admin });
    expect(test.json).toMatchObject({ success: false, message: expect.stringMatching(/refused the connection \(unreachable\)/) });
  });

  it("a failure halfway (a group that cannot be read) changes nothing", async () => {
    await configure("Microsoft", { client_secret: "wrong" });
    const test = await call(testDirsyncGet as Handler, { jar: admin });
    expect(test.json.message).toMatch(/Microsoft token request: the credentials were refused \(HTTP 401: AADSTS7000215/);
  });

  it("group match limits the groups synced", async () => {
    await configure("Google", { directory_sync_group_match: "vpn-users", directory_sync_target: "groups" });
    await runDirectorySync();
    expect(await membership()).toEqual(["alice:local", "alice:sales", "alice:vpn-users", "dave:engineering", "root:admin"]);
    // Target "groups": nobody's state changed.
    expect(await states()).toEqual({ alice: true, bob: true, carol: false, dave: true, root: true });
  });

  it("group sync at sign-in keeps to the matched groups, and does nothing with sync off", async () => {
    const alice = (await query<{ id: number }>("select id from users where username = 'alice'"))[0].id;
    await configure("Okta", { directory_sync_group_match: "vpn-users, sales" });
    expect(await syncGroupsAtSignIn(alice)).toBe(3);
    expect(await membership()).toEqual(["alice:local", "alice:vpn-users", "dave:engineering", "root:admin"]);
    await query("delete from group_users where group_id = (select id from groups where name = 'vpn-users')");
    await configure("Okta", { directory_sync_enabled: false });
    s.seen.length = 0;
    expect(await syncGroupsAtSignIn(alice)).toBeNull();
    expect(s.seen).toHaveLength(0);
  });

  it("target users leaves groups alone; delete removes users missing upstream but never the last admin", async () => {
    await configure("Okta", { directory_sync_target: "users", directory_sync_user_behavior: "delete", directory_sync_admin_behavior: "delete" });
    const out = await runDirectorySync();
    expect(await states()).toEqual({ alice: true, bob: false, carol: true, root: true });
    expect(out.skipped).toEqual(["root is the last active admin and is kept"]);
    expect(await membership()).toEqual(["alice:local", "alice:sales", "root:admin"]);
  });

  it("prefetch creates accounts for active people of the directory", async () => {
    await configure("Microsoft", { prefetch_users: true, directory_sync_target: "users" });
    await runDirectorySync();
    const created = await query<{ username: string; first_name: string; last_name: string }>("select username, first_name, last_name from users where email in ('erin@corp.example', 'frank@corp.example') order by 1");
    expect(created).toEqual([
      { username: "erin", first_name: "Erin", last_name: "Evans" },
      { username: "frank", first_name: "Frank", last_name: "Fox" },
    ]);
  });

  it("the job runs when sync is on and its interval has passed, not before", async () => {
    await configure("JumpCloud");
    await directorySyncJob();
    const [{ last_sync_at: first }] = await query<{ last_sync_at: Date }>("select last_sync_at from openid_provider");
    expect(first).toBeTruthy();
    s.seen.length = 0;
    await directorySyncJob();
    expect(s.seen).toHaveLength(0);
    await query("update openid_provider set last_sync_at = now() - interval '601 seconds'");
    await directorySyncJob();
    expect(s.seen.length).toBeGreaterThan(0);
    await configure("JumpCloud", { directory_sync_enabled: false });
    await query("update openid_provider set last_sync_at = null");
    s.seen.length = 0;
    await directorySyncJob();
    expect(s.seen).toHaveLength(0);
  });
});

describe("sync now (POST /directory_sync)", () => {
  it("an admin runs one sync now and gets the outcome in words; the status on the provider follows", async () => {
    await configure("Google");
    await query("update openid_provider set last_sync_at = now() - interval '1 day', last_sync_ok = false, last_sync_error = 'old'");
    const res = await call(syncNowPost as Handler, { method: "POST", jar: admin });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ success: true, users: 5, groups: 3, changes: 9, skipped: [] });
    expect(res.json.message).toBe("5 users and 3 groups read from the directory; 9 changes");
    const [row] = await query<{ last_sync_at: Date; last_sync_ok: boolean; last_sync_result: string; last_sync_error: string | null }>("select last_sync_at, last_sync_ok, last_sync_result, last_sync_error from openid_provider");
    expect(row).toMatchObject({ last_sync_ok: true, last_sync_result: res.json.message, last_sync_error: null });
    expect(new Date(res.json.last_sync_at).getTime()).toBe(row.last_sync_at.getTime());
    expect(Date.now() - row.last_sync_at.getTime()).toBeLessThan(60_000);
    expect(await states()).toEqual({ alice: true, bob: false, carol: true, dave: false, root: true });
    // Run again at once (the interval does not matter for "Sync now"): nothing left to change.
    const again = await call(syncNowPost as Handler, { method: "POST", jar: admin });
    expect(again.json).toMatchObject({ success: true, changes: 0 });
  });

  it("is for admins only", async () => {
    await configure("JumpCloud");
    await createUser({ username: "plain", email: "plain@console.example" });
    const user = await signIn("plain");
    s.seen.length = 0;
    expect((await call(syncNowPost as Handler, { method: "POST", jar: user })).status).toBe(403);
    expect((await call(syncNowPost as Handler, { method: "POST" })).status).toBe(401);
    expect(s.seen).toHaveLength(0);
    expect((await query("select last_sync_at from openid_provider where last_sync_at is not null"))).toHaveLength(0);
  });

  it("answers 400 {msg} when there is nothing to sync, and changes nothing", async () => {
    const before = { states: await states(), membership: await membership() };
    const none = await call(syncNowPost as Handler, { method: "POST", jar: admin });
    expect(none.status).toBe(400);
    expect(none.json.msg).toBe(SYNC_NOW_MSG.noProvider);
    await configure("JumpCloud", { directory_sync_enabled: false });
    const off = await call(syncNowPost as Handler, { method: "POST", jar: admin });
    expect(off.status).toBe(400);
    expect(off.json.msg).toBe(SYNC_NOW_MSG.off);
    await saveProvider(SYSTEM_ACTOR, providerSchema.parse({ name: "Custom", base_url: "https://id.example.com", client_id: "c", client_secret: "s", directory_sync_enabled: true }));
    const custom = await call(syncNowPost as Handler, { method: "POST", jar: admin });
    expect(custom.status).toBe(400);
    expect(custom.json.msg).toMatch(/^directory sync is not available for the provider Custom/);
    expect(s.seen).toHaveLength(0);
    expect({ states: await states(), membership: await membership() }).toEqual(before);
  });

  it("a failing sync is 400 with the error in words, kept as the last result, and changes nothing", async () => {
    await configure("JumpCloud", { jumpcloud_api_key: "wrong-key" });
    const before = { states: await states(), membership: await membership() };
    const res = await call(syncNowPost as Handler, { method: "POST", jar: admin });
    expect(res.status).toBe(400);
    expect(res.json.msg).toMatch(/JumpCloud users: the credentials were refused \(HTTP 401/);
    expect({ states: await states(), membership: await membership() }).toEqual(before);
    const [row] = await query<{ last_sync_ok: boolean; last_sync_error: string }>("select last_sync_ok, last_sync_error from openid_provider");
    expect(row).toEqual({ last_sync_ok: false, last_sync_error: res.json.msg });
  });
});
