/**
 * API tokens (`dg-` + 32 letters or digits, SHA-256 at rest): made, listed, renamed and deleted
 * by admins; a request with `Authorization: Bearer <token>` acts as the token's admin without a
 * cookie or an anti-forgery token, and its activity entries name the token. Bad input and the
 * token of a user who is no longer an admin change nothing.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { GET as tokensGet, POST as tokensPost } from "@/app/api/v1/user/[username]/api_token/route";
import { DELETE as tokenDelete } from "@/app/api/v1/user/[username]/api_token/[id]/route";
import { POST as tokenRename } from "@/app/api/v1/user/[username]/api_token/[id]/rename/route";
import { GET as meGet } from "@/app/api/v1/me/route";
import { POST as groupPost } from "@/app/api/v1/group/route";
import { GET as docsGet } from "@/app/api/v1/api-docs/route";
import { sha256hex } from "@/lib/crypto";
import { call, createUser, query, signIn, type Jar } from "@/tests/helpers";

const TOKEN_RE = /^dg-[A-Za-z0-9]{32}$/;
let admin: Jar;
let user: Jar;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const tokensPath = (u: string) => ({ path: `/api/v1/user/${u}/api_token`, params: { username: u } });

async function makeToken(jar: Jar, owner: string, name: string): Promise<string> {
  const res = await call(tokensPost, { method: "POST", jar, body: { name }, ...tokensPath(owner) });
  expect(res.status, res.text).toBe(201);
  expect(Object.keys(res.json)).toEqual(["token"]);
  return res.json.token as string;
}

async function groupCount(name: string): Promise<number> {
  return (await query<{ n: number }>("select count(*)::int n from groups where name = $1", [name]))[0].n;
}

beforeAll(async () => {
  await createUser({ username: "tok-admin", isAdmin: true });
  await createUser({ username: "tok-admin2", isAdmin: true });
  await createUser({ username: "tok-user" });
  admin = await signIn("tok-admin");
  user = await signIn("tok-user");
});

describe("making and listing tokens", () => {
  it("answers the token once, stores only its SHA-256, lists {id, name, created_at}", async () => {
    const token = await makeToken(admin, "tok-admin", "ci pipeline");
    expect(token).toMatch(TOKEN_RE);
    const rows = await query<{ token_hash: string; name: string }>(
      "select t.token_hash, t.name from api_tokens t join users u on u.id = t.user_id where u.username = 'tok-admin'",
    );
    expect(rows).toEqual([{ token_hash: sha256hex(token), name: "ci pipeline" }]);
    const dump = JSON.stringify(await query("select * from api_tokens"));
    expect(dump).not.toContain(token.slice(3));

    const list = await call(tokensGet, { jar: admin, ...tokensPath("tok-admin") });
    expect(list.status).toBe(200);
    expect(list.json).toHaveLength(1);
    expect(Object.keys(list.json[0]).sort()).toEqual(["created_at", "id", "name"]);
    expect(list.json[0].name).toBe("ci pipeline");
    expect(list.text).not.toContain(token);
    const [entry] = await query<{ event: string; username: string }>("select event, username from activity_log where event = 'api_token_added'");
    expect(entry).toEqual({ event: "api_token_added", username: "tok-admin" });
  });

  it("makes different tokens each time", async () => {
    const a = await makeToken(admin, "tok-admin", "a");
    const b = await makeToken(admin, "tok-admin", "b");
    expect(a).not.toBe(b);
  });

  it("an admin may make a token for another admin, never for a user who is not one", async () => {
    expect(await makeToken(admin, "tok-admin2", "other admin")).toMatch(TOKEN_RE);
    const before = await query("select id from api_tokens");
    const res = await call(tokensPost, { method: "POST", jar: admin, body: { name: "nope" }, ...tokensPath("tok-user") });
    expect(res.status).toBe(403);
    expect(res.json.msg).toBeTruthy();
    expect(await query("select id from api_tokens")).toEqual(before);
  });

  it("refuses a user who is not an admin, even for themselves", async () => {
    const res = await call(tokensPost, { method: "POST", jar: user, body: { name: "mine" }, ...tokensPath("tok-user") });
    expect(res.status).toBe(403);
    expect((await call(tokensGet, { jar: user, ...tokensPath("tok-user") })).status).toBe(403);
  });

  it.each([
    [{}, "name"],
    [{ name: "" }, "name"],
    [{ name: "   " }, "name"],
    [{ name: "x".repeat(65) }, "name"],
    [{ name: "<script>" }, "name"],
    [{ name: 5 }, "name"],
  ])("bad input %j: 400 naming the field, nothing stored", async (body, field) => {
    const before = await query("select id from api_tokens");
    const res = await call(tokensPost, { method: "POST", jar: admin, body, ...tokensPath("tok-admin") });
    expect(res.status).toBe(400);
    expect(res.json.field).toBe(field);
    expect(res.json.msg).toContain(field);
    expect(await query("select id from api_tokens")).toEqual(before);
  });

  it("404 for an unknown user", async () => {
    const res = await call(tokensPost, { method: "POST", jar: admin, body: { name: "x" }, ...tokensPath("nobody-here") });
    expect(res.status).toBe(404);
  });
});

describe("Authorization: Bearer", () => {
  it("acts as the admin without cookie or X-XSRF-TOKEN, and the activity log names the token", async () => {
    const token = await makeToken(admin, "tok-admin", "deploy bot");
    const me = await call(meGet, { headers: bearer(token) });
    expect(me.status).toBe(200);
    expect(me.json).toMatchObject({ username: "tok-admin", is_admin: true });

    const res = await call(groupPost, { method: "POST", path: "/api/v1/group", body: { name: "made-by-token" }, headers: bearer(token) });
    expect(res.status, res.text).toBe(201);
    const [entry] = await query<{ username: string; description: string }>(
      "select username, description from activity_log where event = 'group_added' order by id desc limit 1",
    );
    expect(entry.username).toBe("tok-admin");
    expect(entry.description).toContain('API token "deploy bot"');
  });

  it("a cookie request still needs X-XSRF-TOKEN", async () => {
    const res = await call(groupPost, { method: "POST", path: "/api/v1/group", body: { name: "cookie-no-xsrf" }, cookies: admin });
    expect(res.status).toBe(403);
    expect(await groupCount("cookie-no-xsrf")).toBe(0);
  });

  it.each([
    ["an unknown token", `dg-${"A".repeat(32)}`],
    ["a malformed token", "not-a-token"],
    ["an empty token", ""],
  ])("%s: 401 {msg}, nothing changes", async (_, token) => {
    const res = await call(groupPost, { method: "POST", path: "/api/v1/group", body: { name: "bad-token-group" }, headers: bearer(token) });
    expect(res.status).toBe(401);
    expect(res.json.msg).toBeTruthy();
    expect(await groupCount("bad-token-group")).toBe(0);
  });

  it("the token of a demoted admin stops working (403), and works again once they are admin again", async () => {
    await createUser({ username: "tok-demoted", isAdmin: true });
    const jar = await signIn("tok-demoted");
    const token = await makeToken(jar, "tok-demoted", "soon useless");
    expect((await call(meGet, { headers: bearer(token) })).status).toBe(200);

    await query("delete from group_users where user_id = (select id from users where username = 'tok-demoted')");
    const me = await call(meGet, { headers: bearer(token) });
    expect(me.status).toBe(403);
    expect(me.json.msg).toBeTruthy();
    const res = await call(groupPost, { method: "POST", path: "/api/v1/group", body: { name: "demoted-group" }, headers: bearer(token) });
    expect(res.status).toBe(403);
    expect(await groupCount("demoted-group")).toBe(0);
    const log = await query("select id from activity_log where description like '%soon useless%' and event = 'group_added'");
    expect(log).toEqual([]);

    await query(
      "insert into group_users (group_id, user_id) select g.id, u.id from groups g, users u where g.name = 'admin' and u.username = 'tok-demoted'",
    );
    expect((await call(meGet, { headers: bearer(token) })).status).toBe(200);
  });

  it("public routes ignore the header, even with a bad token", async () => {
    const { GET: essentialsGet } = await import("@/app/api/v1/settings_essentials/route");
    const res = await call(essentialsGet, { path: "/api/v1/settings_essentials", headers: bearer("dg-nonsense") });
    expect(res.status).toBe(200);
  });

  it("the token of a disabled admin is refused (401)", async () => {
    await createUser({ username: "tok-disabled", isAdmin: true });
    const token = await makeToken(admin, "tok-disabled", "disabled owner");
    await query("update users set is_active = false where username = 'tok-disabled'");
    expect((await call(meGet, { headers: bearer(token) })).status).toBe(401);
  });

  it("a token is not fresh: changing sign-in security needs a cookie session", async () => {
    const { DELETE: mfaDelete } = await import("@/app/api/v1/user/[username]/mfa/route");
    const token = await makeToken(admin, "tok-admin", "not fresh");
    const res = await call(mfaDelete, { method: "DELETE", path: "/api/v1/user/tok-user/mfa", params: { username: "tok-user" }, headers: bearer(token) });
    expect(res.status).toBe(403);
    expect(res.json.code).toBe("reauth_required");
  });
});

describe("rename and delete", () => {
  it("renames (activity api_token_renamed) and deletes; a deleted token stops working", async () => {
    const token = await makeToken(admin, "tok-admin", "short lived");
    const list = (await call(tokensGet, { jar: admin, ...tokensPath("tok-admin") })).json as { id: number; name: string }[];
    const id = list.find((t) => t.name === "short lived")!.id;
    const idPath = { path: `/api/v1/user/tok-admin/api_token/${id}`, params: { username: "tok-admin", id: String(id) } };

    const bad = await call(tokenRename, { method: "POST", jar: admin, body: { name: "" }, ...idPath });
    expect(bad.status).toBe(400);
    const renamed = await call(tokenRename, { method: "POST", jar: admin, body: { name: "renamed" }, ...idPath });
    expect(renamed.status, renamed.text).toBe(200);
    const after = (await call(tokensGet, { jar: admin, ...tokensPath("tok-admin") })).json as { id: number; name: string }[];
    expect(after.find((t) => t.id === id)!.name).toBe("renamed");
    expect(await query("select id from activity_log where event = 'api_token_renamed'")).toHaveLength(1);

    // Another user's path does not reach the token.
    const wrongOwner = await call(tokenDelete, { method: "DELETE", jar: admin, path: `/api/v1/user/tok-admin2/api_token/${id}`, params: { username: "tok-admin2", id: String(id) } });
    expect(wrongOwner.status).toBe(404);

    const del = await call(tokenDelete, { method: "DELETE", jar: admin, ...idPath });
    expect(del.status).toBe(200);
    expect((await call(meGet, { headers: bearer(token) })).status).toBe(401);
    expect((await call(tokenDelete, { method: "DELETE", jar: admin, ...idPath })).status).toBe(404);
    expect(await query("select id from activity_log where event = 'api_token_removed'")).toHaveLength(1);
  });

  it("a token can manage tokens (delete itself) without a cookie", async () => {
    const token = await makeToken(admin, "tok-admin", "self destruct");
    const list = (await call(tokensGet, { headers: bearer(token), ...tokensPath("tok-admin") })).json as { id: number; name: string }[];
    const id = list.find((t) => t.name === "self destruct")!.id;
    const del = await call(tokenDelete, { method: "DELETE", headers: bearer(token), path: `/api/v1/user/tok-admin/api_token/${id}`, params: { username: "tok-admin", id: String(id) } });
    expect(del.status).toBe(200);
    const [entry] = await query<{ description: string }>("select description from activity_log where event = 'api_token_removed' order by id desc limit 1");
    expect(entry.description).toContain('API token "self destruct"');
  });
});

describe("OpenAPI", () => {
  it("declares the bearer scheme and the token routes", async () => {
    const doc = (await call(docsGet, { path: "/api/v1/api-docs" })).json;
    expect(doc.components.securitySchemes.api_token).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.paths["/user/{username}/api_token"].post.security).toContainEqual({ api_token: [] });
    expect(doc.paths["/user/{username}/api_token/{id}/rename"].post).toBeTruthy();
  });
});
