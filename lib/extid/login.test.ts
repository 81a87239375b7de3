/**
 * External OpenID sign-in against a real oidc-provider upstream (tests/upstream-oidc.ts): the
 * provider settings API, auth_info, and the callback rules (state, nonce, account creation
 * allowed or refused, username handling, MFA, disabled accounts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GET as providerGet, POST as providerPost } from "@/app/api/v1/openid/provider/route";
import { DELETE as providerDelete, PUT as providerPut } from "@/app/api/v1/openid/provider/[name]/route";
import { GET as authInfoGet } from "@/app/api/v1/openid/auth_info/route";
import { POST as callbackPost } from "@/app/api/v1/openid/callback/route";
import { GET as meGet } from "@/app/api/v1/me/route";
import { GET as infoGet } from "@/app/api/v1/info/route";
import { call, createUser, jarFrom, query, signIn, type Handler, type Jar } from "@/tests/helpers";
import { signInUpstream, startUpstream, type Upstream } from "@/tests/upstream-oidc";
import { startDirectoryStandIns, type StandIns } from "@/tests/directory-standins";
import { setDirectoryEndpointsForTests } from "./directory/http";
import { callbackUrl, FLOW_COOKIE, LOGIN_MSG } from "./login";
import { MSG } from "./service";

let up: Upstream;
let admin: Jar;

function providerBody(extra: Record<string, unknown> = {}) {
  return {
    name: "Custom",
    base_url: up.issuer,
    client_id: up.clientId,
    client_secret: up.clientSecret,
    display_name: "Upstream",
    create_account: true,
    username_handling: "RemoveForbidden",
    directory_sync_enabled: false,
    directory_sync_interval: 600,
    directory_sync_user_behavior: "keep",
    directory_sync_admin_behavior: "keep",
    directory_sync_target: "all",
    prefetch_users: false,
    ...extra,
  };
}

const setProvider = (extra: Record<string, unknown> = {}) => call(providerPost as Handler, { method: "POST", jar: admin, body: providerBody(extra) });

/** The whole flow: auth_info, the upstream sign-in as `login`, and the callback. */
async function flow(login: string, tamper?: { url?: (u: URL) => void; state?: (s: string) => string; noCookie?: boolean }) {
  const info = await call(authInfoGet as Handler, { path: "/api/v1/openid/auth_info" });
  expect(info.status, info.text).toBe(200);
  const url = new URL(info.json.url);
  tamper?.url?.(url);
  const back = await signInUpstream(url.href, login);
  expect(back.href.startsWith(callbackUrl())).toBe(true);
  const code = back.searchParams.get("code")!;
  const state = back.searchParams.get("state")!;
  const cookies: Jar = tamper?.noCookie ? {} : { [FLOW_COOKIE]: info.cookies[FLOW_COOKIE].value };
  const res = await call(callbackPost as Handler, { method: "POST", path: "/api/v1/openid/callback", cookies, body: { code, state: tamper?.state ? tamper.state(state) : state, iss: back.searchParams.get("iss") ?? undefined } });
  return { info, res };
}

beforeAll(async () => {
  up = await startUpstream({ redirectUris: [callbackUrl()] });
  await createUser({ username: "root", isAdmin: true });
  admin = await signIn("root");
});

afterAll(async () => {
  await up?.close();
});

beforeEach(() => {
  up.accounts.clear();
});

describe("provider settings", () => {
  it("refuses bad input with the field, and changes nothing", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ base_url: "not a url" }, "base_url"],
      [{ base_url: "ftp://example.com" }, "base_url"],
      [{ name: "Facebook" }, "name"],
      [{ client_id: "" }, "client_id"],
      [{ directory_sync_interval: 5 }, "directory_sync_interval"],
      [{ directory_sync_user_behavior: "explode" }, "directory_sync_user_behavior"],
      [{ client_secret: "" }, "client_secret"],
      [{ google_service_account_key: "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----" }, "google_service_account_key"],
      [{ okta_private_jwk: '{"kty":"RSA","n":"x","e":"AQAB"}' }, "okta_private_jwk"],
      [{ name: "Okta", directory_sync_enabled: true }, "okta_dirsync_client_id"],
    ];
    for (const [extra, field] of cases) {
      const res = await setProvider(extra);
      expect(res.status, JSON.stringify(extra)).toBe(400);
      expect(res.json.field).toBe(field);
      expect(res.json.msg).toMatch(new RegExp(`^${field}: `));
    }
    expect((await setProvider({ client_secret: "" })).json.msg).toBe(`client_secret: ${MSG.secretRequired}`);
    expect(await query("select 1 from openid_provider")).toHaveLength(0);
    const none = await call(providerGet as Handler, { jar: admin });
    expect(none.status).toBe(204);
    expect(none.text).toBe("");
    expect((await call(authInfoGet as Handler)).status).toBe(404);
  });

  it("stores the client secret encrypted and never answers it; an empty secret keeps it", async () => {
    const res = await setProvider({ scopes: "email profile" });
    expect(res.status, res.text).toBe(201);
    expect(res.text).not.toContain(up.clientSecret);
    const [row] = await query<{ client_secret_enc: string; scopes: string[] }>("select client_secret_enc, scopes from openid_provider");
    expect(row.client_secret_enc).not.toContain(up.clientSecret);
    expect(row.client_secret_enc.startsWith("v1:")).toBe(true);
    expect(row.scopes).toEqual(["openid", "email", "profile"]);
    const get = await call(providerGet as Handler, { jar: admin });
    expect(get.status).toBe(200);
    expect(get.text).not.toContain(up.clientSecret);
    expect(get.json.provider).toMatchObject({ name: "Custom", base_url: up.issuer, client_id: up.clientId, client_secret: null, client_secret_set: true, display_name: "Upstream" });
    expect(get.json.settings).toEqual({ create_account: true, username_handling: "RemoveForbidden" });
    const again = await call(providerPut as Handler, { method: "PUT", jar: admin, params: { name: "Custom" }, body: providerBody({ client_secret: "", display_name: "Company login" }) });
    expect(again.status, again.text).toBe(200);
    const [after] = await query<{ client_secret_enc: string }>("select client_secret_enc from openid_provider");
    expect(after.client_secret_enc).toBe(row.client_secret_enc);
    expect((await call(infoGet as Handler, { jar: admin })).json.external_openid_enabled).toBe(true);
  });

  it("auth_info gives the authorization URL and the label; state and nonce stay sealed in the cookie", async () => {
    await setProvider();
    const info = await call(authInfoGet as Handler);
    expect(info.status).toBe(200);
    expect(info.json.button_display_name).toBe("Upstream");
    const url = new URL(info.json.url);
    expect(url.origin).toBe(up.issuer);
    expect(url.searchParams.get("client_id")).toBe(up.clientId);
    expect(url.searchParams.get("redirect_uri")).toBe(callbackUrl());
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    const state = url.searchParams.get("state")!;
    const cookie = info.cookies[FLOW_COOKIE];
    expect(cookie.httpOnly).toBe(true);
    expect(cookie.path).toBe("/api/v1/openid");
    expect(cookie.value).not.toContain(state);
    expect(cookie.value).not.toContain(url.searchParams.get("nonce")!);
  });
});

describe("callback", () => {
  beforeEach(async () => {
    await setProvider();
  });

  it("creates the account on first sign-in, signs in, and finds it again by subject", async () => {
    up.accounts.set("sub-alice", { email: "alice@corp.example", given_name: "Alice", family_name: "Smith", preferred_username: "Alice Smith!" });
    const { res } = await flow("sub-alice");
    expect(res.status, res.text).toBe(200);
    expect(res.json.user).toMatchObject({ username: "AliceSmith", email: "alice@corp.example", first_name: "Alice", last_name: "Smith" });
    expect(res.cookies[FLOW_COOKIE].maxAge).toBe(0);
    const me = await call(meGet as Handler, { jar: jarFrom(res) });
    expect(me.status).toBe(200);
    expect(me.json.username).toBe("AliceSmith");
    // The upstream renames the person: the subject still finds the same account.
    up.accounts.set("sub-alice", { email: "alice@corp.example", preferred_username: "someone-else" });
    const second = await flow("sub-alice");
    expect(second.res.status).toBe(200);
    expect(second.res.json.user.username).toBe("AliceSmith");
    expect(await query("select 1 from users where email = 'alice@corp.example'")).toHaveLength(1);
    const log = await query<{ event: string }>("select event from activity_log where username = 'AliceSmith' order by id");
    expect(log.map((l) => l.event)).toEqual(["user_added", "user_login", "user_login"]);
  });

  it("links an existing account with the same e-mail instead of creating one", async () => {
    await createUser({ username: "carol", email: "Carol@Corp.example" });
    up.accounts.set("sub-carol", { email: "carol@corp.example", preferred_username: "carol.other" });
    const { res } = await flow("sub-carol");
    expect(res.status, res.text).toBe(200);
    expect(res.json.user.username).toBe("carol");
    expect(await query("select sub from user_openid_identities i join users u on u.id = i.user_id where u.username = 'carol'")).toEqual([{ sub: "sub-carol" }]);
  });

  it("refuses an unknown person when account creation is off, and creates nothing", async () => {
    await setProvider({ create_account: false });
    up.accounts.set("sub-dave", { email: "dave@corp.example", preferred_username: "dave" });
    const { res } = await flow("sub-dave");
    expect(res.status).toBe(403);
    expect(res.json.msg).toBe(LOGIN_MSG.creationRefused);
    expect(res.cookies.defguard_session).toBeUndefined();
    expect(await query("select 1 from users where email = 'dave@corp.example'")).toHaveLength(0);
    expect(await query("select 1 from activity_log where event = 'user_login_failed' and description like '%dave@corp.example%'")).toHaveLength(1);
  });

  it("makes the username as configured: replace forbidden characters, or the e-mail's local part", async () => {
    await setProvider({ username_handling: "ReplaceForbidden" });
    up.accounts.set("sub-erin", { email: "erin@corp.example", preferred_username: "Erin Ray!" });
    expect((await flow("sub-erin")).res.json.user.username).toBe("Erin_Ray_");
    await setProvider({ username_handling: "PruneEmailDomain" });
    up.accounts.set("sub-frank", { email: "frank.b@corp.example", preferred_username: "frank.b@corp.example" });
    expect((await flow("sub-frank")).res.json.user.username).toBe("frank.b");
    // No preferred_username: the e-mail's local part.
    await setProvider({ username_handling: "RemoveForbidden" });
    up.accounts.set("sub-gina", { email: "gina+vpn@corp.example" });
    expect((await flow("sub-gina")).res.json.user.username).toBe("ginavpn");
  });

  it("refuses a username taken by another account with 409", async () => {
    await createUser({ username: "henry", email: "henry@elsewhere.example" });
    up.accounts.set("sub-henry", { email: "henry@corp.example", preferred_username: "henry" });
    const { res } = await flow("sub-henry");
    expect(res.status).toBe(409);
    expect(await query("select 1 from users where email = 'henry@corp.example'")).toHaveLength(0);
  });

  it("refuses a state that does not match the sealed one, and a missing or forged cookie", async () => {
    up.accounts.set("sub-ivy", { email: "ivy@corp.example" });
    const bad = await flow("sub-ivy", { state: (s) => s + "x" });
    expect(bad.res.status).toBe(400);
    expect(bad.res.json.msg).toBe(LOGIN_MSG.stateMismatch);
    const none = await flow("sub-ivy", { noCookie: true });
    expect(none.res.status).toBe(400);
    expect(none.res.json.msg).toBe(LOGIN_MSG.noFlow);
    const forged = await call(callbackPost as Handler, { method: "POST", cookies: { [FLOW_COOKIE]: "v1:AAAA:BBBB:CCCC" }, body: { code: "x", state: "y" } });
    expect(forged.status).toBe(400);
    expect(forged.json.msg).toBe(LOGIN_MSG.noFlow);
    expect(await query("select 1 from users where email = 'ivy@corp.example'")).toHaveLength(0);
  });

  it("refuses an ID token whose nonce is not the one of this sign-in", async () => {
    up.accounts.set("sub-jack", { email: "jack@corp.example" });
    const { res } = await flow("sub-jack", { url: (u) => u.searchParams.set("nonce", "attacker-chosen-nonce") });
    expect(res.status).toBe(401);
    expect(res.json.msg).toMatch(/nonce/);
    expect(await query("select 1 from users where email = 'jack@corp.example'")).toHaveLength(0);
  });

  it("refuses bad callback input with the field", async () => {
    const res = await call(callbackPost as Handler, { method: "POST", body: { state: "x" } });
    expect(res.status).toBe(400);
    expect(res.json.field).toBe("code");
  });

  it("keeps the console's MFA: a user with MFA on gets a session waiting for the second factor", async () => {
    await createUser({ username: "kate", email: "kate@corp.example", mfaEnabled: true });
    up.accounts.set("sub-kate", { email: "kate@corp.example" });
    const { res } = await flow("sub-kate");
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ mfa_method: "OneTimePassword", totp_available: true });
    const me = await call(meGet as Handler, { jar: jarFrom(res) });
    expect(me.status).toBe(401);
    expect(me.json.msg).toBe("second authentication factor required");
  });

  it("refuses a disabled account", async () => {
    await createUser({ username: "liam", email: "liam@corp.example", isActive: false });
    up.accounts.set("sub-liam", { email: "liam@corp.example" });
    const { res } = await flow("sub-liam");
    expect(res.status).toBe(403);
    expect(res.json.msg).toBe(LOGIN_MSG.disabled);
    expect(res.cookies.defguard_session).toBeUndefined();
  });

  it("removing the provider ends external sign-in", async () => {
    const del = await call(providerDelete as Handler, { method: "DELETE", jar: admin, params: { name: "Custom" } });
    expect(del.status).toBe(200);
    expect((await call(providerDelete as Handler, { method: "DELETE", jar: admin, params: { name: "Custom" } })).status).toBe(404);
    expect((await call(authInfoGet as Handler)).status).toBe(404);
    expect((await call(providerGet as Handler, { jar: admin })).status).toBe(204);
    expect(await query("select event from activity_log where event = 'open_id_provider_removed'")).toHaveLength(1);
  });
});

describe("group sync at sign-in (directory sync on, JumpCloud directory stand-in)", () => {
  let dir: StandIns;

  beforeAll(async () => {
    dir = await startDirectoryStandIns({
      people: [{ email: "mia@corp.example", given: "Mia", family: "Moss", active: true }],
      groups: { engineering: ["mia@corp.example"], "vpn-users": ["mia@corp.example"], sales: [] },
    });
    setDirectoryEndpointsForTests({ jumpcloud: dir.url });
  });

  afterAll(async () => {
    setDirectoryEndpointsForTests();
    await dir?.close();
  });

  const groupsOf = async (username: string) =>
    (await query<{ name: string }>("select g.name from group_users gu join groups g on g.id = gu.group_id join users u on u.id = gu.user_id where u.username = $1 order by 1", [username])).map((r) => r.name);

  it("the person's groups follow the directory before the session opens", async () => {
    // The login goes to the upstream OpenID provider; the directory is JumpCloud's API.
    await setProvider({ name: "JumpCloud", jumpcloud_api_key: dir.jumpcloud.apiKey, directory_sync_enabled: true, directory_sync_target: "groups" });
    await createUser({ username: "mia", email: "mia@corp.example", groups: ["sales", "local"] });
    up.accounts.set("sub-mia", { email: "mia@corp.example" });
    const { res } = await flow("sub-mia");
    expect(res.status, res.text).toBe(200);
    expect(await groupsOf("mia")).toEqual(["engineering", "local", "vpn-users"]);
    expect(res.json.user.groups.sort()).toEqual(["engineering", "local", "vpn-users"]);
    // The directory changes; the next sign-in follows it.
    dir.data.groups["vpn-users"] = [];
    dir.data.groups.sales = ["mia@corp.example"];
    expect((await flow("sub-mia")).res.status).toBe(200);
    expect(await groupsOf("mia")).toEqual(["engineering", "local", "sales"]);
  });

  it("an unreadable directory does not stop the sign-in, and changes nothing", async () => {
    await setProvider({ name: "JumpCloud", jumpcloud_api_key: "wrong-key", directory_sync_enabled: true, directory_sync_target: "all" });
    await query("delete from users where email = 'nora@corp.example'");
    await createUser({ username: "nora", email: "nora@corp.example", groups: ["sales"] });
    up.accounts.set("sub-nora", { email: "nora@corp.example" });
    const { res } = await flow("sub-nora");
    expect(res.status, res.text).toBe(200);
    expect(await groupsOf("nora")).toEqual(["sales"]);
  });

  it("a provider without a directory sync (Custom) leaves groups alone", async () => {
    await setProvider({ directory_sync_enabled: true });
    await createUser({ username: "olga", email: "mia.o@corp.example", groups: ["sales"] });
    up.accounts.set("sub-olga", { email: "mia.o@corp.example" });
    expect((await flow("sub-olga")).res.status).toBe(200);
    expect(await groupsOf("olga")).toEqual(["sales"]);
  });
});
