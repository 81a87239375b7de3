/**
 * Groups API through the real route handlers on a real database: create, list, details,
 * rename/edit, members (add, remove, bulk assign), delete, the activity event of every
 * mutation and bad input (400/404/409, nothing changed).
 */
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as groupNames, POST as groupCreate } from "@/app/api/v1/group/route";
import { GET as groupInfoList } from "@/app/api/v1/group-info/route";
import { GET as groupGet, PUT as groupPut, DELETE as groupDelete, POST as memberAdd } from "@/app/api/v1/group/[name]/route";
import { DELETE as memberRemove } from "@/app/api/v1/group/[name]/user/[username]/route";
import { POST as groupsAssign } from "@/app/api/v1/groups-assign/route";
import { GET as userGet } from "@/app/api/v1/user/[username]/route";
import { GET as meGet } from "@/app/api/v1/me/route";
import { call, createUser, query, signIn, type Jar } from "./helpers";

const path = (name: string, rest = "") => `/api/v1/group/${encodeURIComponent(name)}${rest}`;
const create = (jar: Jar, body: unknown) => call(groupCreate, { method: "POST", path: "/api/v1/group", jar, body });
const names = (jar: Jar) => call(groupNames, { path: "/api/v1/group", jar });
const infos = (jar: Jar) => call(groupInfoList, { path: "/api/v1/group-info", jar });
const get = (jar: Jar, name: string) => call(groupGet, { path: path(name), jar, params: { name } });
const edit = (jar: Jar, name: string, body: unknown) => call(groupPut, { method: "PUT", path: path(name), jar, params: { name }, body });
const del = (jar: Jar, name: string) => call(groupDelete, { method: "DELETE", path: path(name), jar, params: { name } });
const add = (jar: Jar, name: string, body: unknown) => call(memberAdd, { method: "POST", path: path(name), jar, params: { name }, body });
const kick = (jar: Jar, name: string, username: string) =>
  call(memberRemove, { method: "DELETE", path: path(name, `/user/${username}`), jar, params: { name, username } });
const assign = (jar: Jar, body: unknown) => call(groupsAssign, { method: "POST", path: "/api/v1/groups-assign", jar, body });

async function members(name: string): Promise<string[]> {
  const rows = await query<{ username: string }>(
    "select u.username from group_users gu join groups g on g.id = gu.group_id join users u on u.id = gu.user_id where g.name = $1 order by u.username",
    [name],
  );
  return rows.map((r) => r.username);
}

async function counts() {
  const [r] = await query<{ groups: number; members: number; activity: number; users: number }>(
    `select (select count(*)::int from groups) groups, (select count(*)::int from group_users) members,
            (select count(*)::int from activity_log) activity, (select count(*)::int from users) users`,
  );
  return r;
}

/** The newest activity entry, or the newest of one event. */
async function lastEvent(event?: string) {
  const [row] = await query<{ event: string; username: string; description: string; ip: string; module: string }>(
    `select event, username, description, ip, module from activity_log ${event ? "where event = $1" : ""} order by id desc limit 1`,
    event ? [event] : [],
  );
  return row;
}

let root: Jar;
const ids: Record<string, number> = {};

afterEach(() => {
  vi.restoreAllMocks();
});

beforeAll(async () => {
  await createUser({ username: "root", isAdmin: true });
  for (const u of ["ala", "ola", "ela", "iza"]) ids[u] = (await createUser({ username: u })).id;
  root = await signIn("root");
});

describe("POST /group", () => {
  it("creates a group: 201 GroupInfo, members sorted, records group_added", async () => {
    const res = await create(root, { name: "developers", members: ["ola", "ALA"], is_admin: false });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toEqual({ id: expect.any(Number), name: "developers", members: ["ala", "ola"], vpn_locations: [], is_admin: false });
    expect(await members("developers")).toEqual(["ala", "ola"]);
    expect(await lastEvent()).toMatchObject({ event: "group_added", username: "root", description: "Added group developers", ip: "127.0.0.1", module: "defguard" });
  });

  it("defaults members to none and is_admin to false", async () => {
    const res = await create(root, { name: "empty" });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ name: "empty", members: [], is_admin: false });
  });

  it("an is_admin group gives its members admin rights", async () => {
    const iza = await signIn("iza");
    expect((await call(meGet, { jar: iza })).json.is_admin).toBe(false);
    const res = await create(root, { name: "ops", members: ["iza"], is_admin: true });
    expect(res.status).toBe(201);
    expect(res.json.is_admin).toBe(true);
    expect((await call(meGet, { jar: iza })).json).toMatchObject({ is_admin: true, groups: ["ops"] });
    // and back
    expect((await kick(root, "ops", "iza")).status).toBe(200);
    expect((await call(meGet, { jar: iza })).json.is_admin).toBe(false);
  });

  it("refuses a taken name with 409 and changes nothing", async () => {
    const before = await counts();
    const res = await create(root, { name: "developers", members: ["ela"] });
    expect(res.status).toBe(409);
    expect(res.json.msg).toBe("name is already taken");
    expect(await counts()).toEqual(before);
    expect(await members("developers")).toEqual(["ala", "ola"]);
  });

  it("refuses unknown members with 400 and creates nothing", async () => {
    const before = await counts();
    const res = await create(root, { name: "ghosts", members: ["ala", "ghost"] });
    expect(res.status).toBe(400);
    expect(res.json.msg).toMatch(/ghost/);
    expect(res.json.msg).toMatch(/^members: /);
    expect(await counts()).toEqual(before);
    expect(await query("select 1 from groups where name = 'ghosts'")).toHaveLength(0);
  });

  it("rejects bad input with 400 naming the field and changes nothing", async () => {
    const before = await counts();
    const bad: [unknown, RegExp][] = [
      [{}, /^name: field is required$/],
      [{ name: "" }, /^name: field is required$/],
      [{ name: "   " }, /^name: field is required$/],
      [{ name: 5 }, /^name: expected a value of another type$/],
      [{ name: "a/b" }, /^name: field contains forbidden characters$/],
      [{ name: "a\\b" }, /^name: field contains forbidden characters$/],
      [{ name: "<script>" }, /^name: field contains forbidden characters$/],
      [{ name: "a\u0000b" }, /^name: field contains forbidden characters$/],
      [{ name: "tab\there" }, /^name: field contains forbidden characters$/],
      [{ name: "g".repeat(65) }, /^name: maximum length exceeded$/],
      [{ name: "ok", members: "ala" }, /^members: /],
      [{ name: "ok", members: [5] }, /^members\.0: /],
      [{ name: "ok", members: [".bad"] }, /^members\.0: /],
      [{ name: "ok", is_admin: "yes" }, /^is_admin: /],
      ["[]", /./],
      ["{bad json", /^request body is not valid JSON$/],
    ];
    for (const [body, msg] of bad) {
      const res = await create(root, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.msg, JSON.stringify(body)).toMatch(msg);
    }
    expect(await counts()).toEqual(before);
  });

  it("accepts unicode and SQL text in names verbatim", async () => {
    for (const name of ["Zespół QA", "运维", "x'); DROP TABLE groups;--"]) {
      const res = await create(root, { name });
      expect(res.status, res.text).toBe(201);
      expect(res.json.name).toBe(name);
      expect((await get(root, name)).json.name).toBe(name);
    }
    expect(await query("select to_regclass('public.groups') is not null ok")).toEqual([{ ok: true }]);
  });
});

describe("reading groups", () => {
  it("GET /group answers {groups: [names]} sorted", async () => {
    const res = await names(root);
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual(["groups"]);
    const db = await query<{ name: string }>("select name from groups order by name");
    expect(res.json.groups).toEqual(db.map((g) => g.name));
    expect(res.json.groups).toEqual(expect.arrayContaining(["admin", "developers", "empty", "ops"]));
  });

  it("GET /group-info answers every GroupInfo with members", async () => {
    const res = await infos(root);
    expect(res.status).toBe(200);
    const [{ n }] = await query<{ n: number }>("select count(*)::int n from groups");
    expect(res.json).toHaveLength(n);
    const dev = res.json.find((g: { name: string }) => g.name === "developers");
    expect(dev).toEqual({ id: expect.any(Number), name: "developers", members: ["ala", "ola"], vpn_locations: [], is_admin: false });
    expect(res.json.find((g: { name: string }) => g.name === "admin")).toMatchObject({ members: ["root"], is_admin: true });
  });

  it("GET /group/{name} answers one GroupInfo; 404 for an unknown group", async () => {
    const res = await get(root, "developers");
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ name: "developers", members: ["ala", "ola"], is_admin: false, vpn_locations: [] });
    const missing = await get(root, "nope");
    expect(missing.status).toBe(404);
    expect(missing.json.msg).toBe("group not found");
  });

  it("GET /group/{name} answers 4xx (not 500) for a name with a NUL byte", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await get(root, "a\u0000b");
    expect(res.status, res.text).toBeGreaterThanOrEqual(400);
    expect(res.status, res.text).toBeLessThan(500);
  });

  it("an ordinary user gets 403 on every group read", async () => {
    const ala = await signIn("ala");
    expect((await names(ala)).status).toBe(403);
    expect((await infos(ala)).status).toBe(403);
    expect((await get(ala, "developers")).status).toBe(403);
  });
});

describe("PUT /group/{originalName}", () => {
  it("renames a group and keeps its id and members; the members' UserInfo shows the new name", async () => {
    const before = (await get(root, "developers")).json;
    const res = await edit(root, "developers", { name: "engineering", members: before.members, is_admin: false });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ ...before, name: "engineering" });
    expect((await get(root, "developers")).status).toBe(404);
    expect(await members("engineering")).toEqual(["ala", "ola"]);
    const ala = await call(userGet, { jar: root, params: { username: "ala" } });
    expect(ala.json.user.groups).toEqual(["engineering"]);
    expect(await lastEvent()).toMatchObject({ event: "group_modified", username: "root", description: "Modified group developers (now engineering)" });
  });

  it("a rename that sends only the new name keeps the members and the admin flag (or is refused), never empties the group", async () => {
    await create(root, { name: "rename-only", members: ["ela", "iza"], is_admin: false });
    await create(root, { name: "rename-admins", members: ["ela"], is_admin: true });
    const res = await edit(root, "rename-only", { name: "renamed-only" });
    if (res.status === 400) {
      // acceptable: the API insists on the full body; then nothing may have changed
      expect(await members("rename-only")).toEqual(["ela", "iza"]);
    } else {
      expect(res.status, res.text).toBe(200);
      expect(res.json.members).toEqual(["ela", "iza"]);
      expect(await members("renamed-only")).toEqual(["ela", "iza"]);
    }
    // the same for an admin group: renaming must not silently drop its admin rights
    const adm = await edit(root, "rename-admins", { name: "renamed-admins" });
    if (adm.status === 400) {
      expect(await query("select 1 from groups where name = 'rename-admins' and is_admin")).toHaveLength(1);
    } else {
      expect(adm.status, adm.text).toBe(200);
      expect(adm.json).toMatchObject({ members: ["ela"], is_admin: true });
    }
  });

  it("replaces the members and the admin flag with what is sent", async () => {
    const res = await edit(root, "engineering", { name: "engineering", members: ["ela", "ola"], is_admin: true });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ members: ["ela", "ola"], is_admin: true });
    expect(await members("engineering")).toEqual(["ela", "ola"]);
    const back = await edit(root, "engineering", { name: "engineering", members: ["ala", "ola"], is_admin: false });
    expect(back.json).toMatchObject({ members: ["ala", "ola"], is_admin: false });
    expect(await lastEvent()).toMatchObject({ event: "group_modified", description: "Modified group engineering" });
  });

  it("refuses a taken name (409), unknown members (400) and an unknown group (404); nothing changes", async () => {
    const before = await counts();
    const snapshot = (await get(root, "engineering")).json;
    const taken = await edit(root, "engineering", { name: "empty", members: ["ala"] });
    expect(taken.status).toBe(409);
    expect(taken.json.msg).toBe("name is already taken");
    const ghost = await edit(root, "engineering", { name: "engineering2", members: ["ala", "ghost"] });
    expect(ghost.status).toBe(400);
    expect(ghost.json.msg).toMatch(/ghost/);
    const missing = await edit(root, "nope", { name: "nope2", members: [] });
    expect(missing.status).toBe(404);
    const bad = await edit(root, "engineering", { name: "a/b", members: [] });
    expect(bad.status).toBe(400);
    expect((await get(root, "engineering")).json).toEqual(snapshot);
    expect(await counts()).toEqual(before);
  });
});

describe("members", () => {
  it("POST /group/{name} {username} adds a member and is idempotent", async () => {
    const res = await add(root, "engineering", { username: "ela" });
    expect(res.status, res.text).toBe(200);
    expect(await members("engineering")).toEqual(["ala", "ela", "ola"]);
    expect(await lastEvent()).toMatchObject({ event: "group_member_added", username: "root", description: "Added ela to group engineering" });
    const again = await add(root, "engineering", { username: "ELA" });
    expect(again.status).toBe(200);
    expect(await members("engineering")).toEqual(["ala", "ela", "ola"]);
  });

  it("adding answers 404 for an unknown user or group and 400 for bad input", async () => {
    const before = await counts();
    const noUser = await add(root, "engineering", { username: "ghost" });
    expect(noUser.status).toBe(404);
    expect(noUser.json.msg).toBe("user not found");
    const noGroup = await add(root, "nope", { username: "ala" });
    expect(noGroup.status).toBe(404);
    expect(noGroup.json.msg).toBe("group not found");
    for (const body of [{}, { username: 5 }, { username: ["ala"] }, { username: "_ala" }]) {
      const res = await add(root, "engineering", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.msg).toMatch(/^username: /);
    }
    expect(await counts()).toEqual(before);
  });

  it("DELETE /group/{name}/user/{username} removes a member; 404 when not a member", async () => {
    const res = await kick(root, "engineering", "ela");
    expect(res.status, res.text).toBe(200);
    expect(await members("engineering")).toEqual(["ala", "ola"]);
    expect(await lastEvent()).toMatchObject({ event: "group_member_removed", username: "root", description: "Removed ela from group engineering" });
    const before = await counts();
    const again = await kick(root, "engineering", "ela");
    expect(again.status).toBe(404);
    expect(again.json.msg).toBe("user is not a member of this group");
    expect((await kick(root, "engineering", "ghost")).status).toBe(404);
    expect((await kick(root, "nope", "ala")).status).toBe(404);
    expect(await counts()).toEqual(before);
  });
});

describe("POST /groups-assign", () => {
  it("adds every listed user to every listed group, keeping existing memberships; records groups_bulk_assigned", async () => {
    await create(root, { name: "vpn-users", members: ["ala"] });
    const res = await assign(root, { groups: ["vpn-users", "empty"], users: [ids.ala, ids.ela, ids.iza] });
    expect(res.status, res.text).toBe(200);
    expect(await members("vpn-users")).toEqual(["ala", "ela", "iza"]);
    expect(await members("empty")).toEqual(["ala", "ela", "iza"]);
    expect(await lastEvent()).toMatchObject({ event: "groups_bulk_assigned", username: "root", description: "Assigned 3 user(s) to empty, vpn-users" });
  });

  it("refuses unknown groups or users and bad input with 400; nothing changes", async () => {
    const before = await counts();
    const bad: [unknown, RegExp][] = [
      [{ groups: ["vpn-users", "nope"], users: [ids.ola] }, /nope/],
      [{ groups: ["vpn-users"], users: [ids.ola, 999999] }, /^users: /],
      [{ groups: [], users: [ids.ola] }, /^groups: field is required$/],
      [{ groups: ["vpn-users"], users: [] }, /^users: field is required$/],
      [{ groups: "vpn-users", users: [ids.ola] }, /^groups: /],
      [{ groups: ["vpn-users"], users: ["ola"] }, /^users\.0: /],
      [{ groups: ["vpn-users"], users: [1.5] }, /^users\.0: /],
      [{ groups: ["vpn-users"], users: [-1] }, /^users\.0: /],
      [{ groups: ["vpn-users"], users: [2 ** 40] }, /./], // beyond int4: 400 (from PostgreSQL), field not named
      [{}, /^groups: /],
    ];
    for (const [body, msg] of bad) {
      const res = await assign(root, body);
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(res.json.msg, JSON.stringify(body)).toMatch(msg);
    }
    expect(await counts()).toEqual(before);
    expect(await members("vpn-users")).toEqual(["ala", "ela", "iza"]);
  });
});

describe("DELETE /group/{name}", () => {
  it("deletes the group and its memberships, not the users; records group_removed", async () => {
    const [{ id }] = await query<{ id: number }>("select id from groups where name = 'vpn-users'");
    const usersBefore = (await counts()).users;
    const res = await del(root, "vpn-users");
    expect(res.status, res.text).toBe(200);
    expect((await get(root, "vpn-users")).status).toBe(404);
    expect(await query("select 1 from group_users where group_id = $1", [id])).toHaveLength(0);
    expect((await counts()).users).toBe(usersBefore);
    expect(await lastEvent()).toMatchObject({ event: "group_removed", username: "root", description: "Removed group vpn-users" });
    expect((await names(root)).json.groups).not.toContain("vpn-users");
  });

  it("answers 404 for an unknown group", async () => {
    const before = await counts();
    expect((await del(root, "vpn-users")).status).toBe(404);
    expect(await counts()).toEqual(before);
  });
});

describe("every group mutation leaves exactly one activity entry", () => {
  it("records group_added, group_modified, group_member_added, group_member_removed, groups_bulk_assigned, group_removed", async () => {
    const start = await query<{ id: number }>("select coalesce(max(id), 0)::int id from activity_log");
    const steps: [string, () => Promise<{ status: number }>][] = [
      ["group_added", () => create(root, { name: "audit", members: [] })],
      ["group_modified", () => edit(root, "audit", { name: "audit2", members: ["ala"] })],
      ["group_member_added", () => add(root, "audit2", { username: "ola" })],
      ["group_member_removed", () => kick(root, "audit2", "ala")],
      ["groups_bulk_assigned", () => assign(root, { groups: ["audit2"], users: [ids.iza] })],
      ["group_removed", () => del(root, "audit2")],
    ];
    for (const [, step] of steps) expect((await step()).status).toBeLessThan(300);
    const rows = await query<{ event: string; username: string; ip: string }>(
      "select event, username, ip from activity_log where id > $1 order by id",
      [start[0].id],
    );
    expect(rows).toEqual(steps.map(([event]) => ({ event, username: "root", ip: "127.0.0.1" })));
  });

  it("a refused mutation records nothing", async () => {
    const before = await counts();
    await create(root, { name: "admin" }); // 409
    await edit(root, "nope", { name: "x" }); // 404
    await add(root, "nope", { username: "ala" }); // 404
    await kick(root, "engineering", "iza"); // 404
    await assign(root, { groups: ["nope"], users: [ids.ala] }); // 400
    await del(root, "nope"); // 404
    expect(await counts()).toEqual(before);
  });
});
