/**
 * Users API through the real route handlers on a real database: list/search/filter/sort,
 * create, availability, details, edit (self and admin), disable, delete, the last-admin rule
 * on every path, passwords (own, by an admin, e-mailed reset through a local SMTP sink) and
 * bad input of every kind (400, nothing changed).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as userList, POST as userCreate } from "@/app/api/v1/user/route";
import { POST as availablePost } from "@/app/api/v1/user/available/route";
import { GET as userGet, PUT as userPut, DELETE as userDelete } from "@/app/api/v1/user/[username]/route";
import { PUT as passwordPut } from "@/app/api/v1/user/[username]/password/route";
import { POST as resetPost } from "@/app/api/v1/user/[username]/reset_password/route";
import { PUT as changePasswordPut } from "@/app/api/v1/user/change_password/route";
import { POST as passwordResetPost } from "@/app/api/v1/password_reset/route";
import { PUT as groupPut, DELETE as groupDelete } from "@/app/api/v1/group/[name]/route";
import { DELETE as groupMemberDelete } from "@/app/api/v1/group/[name]/user/[username]/route";
import { GET as meGet } from "@/app/api/v1/me/route";
import { POST as authPost } from "@/app/api/v1/auth/route";
import { sha256hex } from "@/lib/crypto";
import { freePort } from "@/lib/db/embedded";
import { SMTP_NOT_CONFIGURED } from "@/lib/mail/service";
import { resetUsersListCache } from "@/lib/users/list-cache";
import pg from "pg";
import { call, createUser, DEFAULT_PASSWORD, query, signIn, type Jar } from "./helpers";
import { startSmtpSink, useSmtpSink, type SmtpSink } from "./smtp-sink";

// ------------------------------------------------------------------------------ helpers

const MSG = {
  usernameTaken: "username is already in use",
  emailTaken: "email already taken",
  lastAdmin: "the last active admin cannot lose admin rights",
  adminOnly: "only an admin can change this field",
  resetInvalid: "password reset link is invalid or has expired",
};

const list = (jar: Jar, qs = "") => call(userList, { path: `/api/v1/user${qs}`, jar });
const create = (jar: Jar, body: unknown) => call(userCreate, { method: "POST", path: "/api/v1/user", jar, body });
const details = (jar: Jar, username: string) => call(userGet, { path: `/api/v1/user/${encodeURIComponent(username)}`, jar, params: { username } });
const update = (jar: Jar, username: string, body: unknown) =>
  call(userPut, { method: "PUT", path: `/api/v1/user/${encodeURIComponent(username)}`, jar, params: { username }, body });
const remove = (jar: Jar, username: string) =>
  call(userDelete, { method: "DELETE", path: `/api/v1/user/${encodeURIComponent(username)}`, jar, params: { username } });
const available = (jar: Jar, body: unknown) => call(availablePost, { method: "POST", path: "/api/v1/user/available", jar, body });
const setPassword = (jar: Jar, username: string, body: unknown) =>
  call(passwordPut, { method: "PUT", path: `/api/v1/user/${username}/password`, jar, params: { username }, body });
const startReset = (jar: Jar, username: string) =>
  call(resetPost, { method: "POST", path: `/api/v1/user/${username}/reset_password`, jar, params: { username } });
const changeOwn = (jar: Jar, body: unknown) => call(changePasswordPut, { method: "PUT", path: "/api/v1/user/change_password", jar, body });
const finishReset = (body: unknown) => call(passwordResetPost, { method: "POST", path: "/api/v1/password_reset", body });
const me = (jar: Jar) => call(meGet, { path: "/api/v1/me", jar });
const tryLogin = (username: string, password: string) =>
  call(authPost, { method: "POST", path: "/api/v1/auth", body: { username, password } });

/** The editable profile of a UserInfo, as PUT /user/{username} takes it. */
function profile(u: { username: string; first_name: string; last_name: string; email: string; phone: string | null }) {
  return { username: u.username, first_name: u.first_name, last_name: u.last_name, email: u.email, phone: u.phone };
}

async function userInfo(jar: Jar, username: string) {
  const res = await details(jar, username);
  expect(res.status, res.text).toBe(200);
  return res.json.user;
}

async function userRow(username: string) {
  const [row] = await query("select * from users where lower(username) = lower($1)", [username]);
  return row;
}

async function counts() {
  const [r] = await query<{ users: number; activity: number; groups: number; members: number; sessions: number; tokens: number }>(
    `select (select count(*)::int from users) users, (select count(*)::int from activity_log) activity,
            (select count(*)::int from groups) groups, (select count(*)::int from group_users) members,
            (select count(*)::int from sessions) sessions, (select count(*)::int from password_reset_tokens) tokens`,
  );
  return r;
}

async function events(event: string): Promise<{ username: string; description: string | null; user_id: number | null }[]> {
  return query("select username, description, user_id from activity_log where event = $1 order by id", [event]);
}

async function sessionCount(username: string): Promise<number> {
  const [r] = await query<{ n: number }>(
    "select count(*)::int n from sessions s join users u on u.id = s.user_id where u.username = $1",
    [username],
  );
  return r.n;
}

/** Undo quoted-printable (soft breaks, =XX) so links in the sunk mail can be read. */
function decodeQuotedPrintable(raw: string): string {
  return raw.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

const TABLES_EXIST = "select to_regclass('public.users') is not null u, to_regclass('public.activity_log') is not null a";

let root: Jar;

afterEach(() => {
  vi.restoreAllMocks();
});

beforeAll(async () => {
  await createUser({ username: "root", firstName: "Root", lastName: "Admin", isAdmin: true });
  root = await signIn("root");
});

// ------------------------------------------------------------------------------ list

describe("GET /user", () => {
  beforeAll(async () => {
    await createUser({ username: "anna", firstName: "Anna", lastName: "Zimmer", email: "anna@corp.test" });
    await createUser({ username: "bartek", firstName: "Bartek", lastName: "Young", email: "b.young@corp.test" });
    await createUser({ username: "celina", firstName: "Celina", lastName: "Xu", email: "cx@corp.test" });
  });

  const names = (rows: { username: string }[]) => rows.map((r) => r.username);
  const known = (rows: { username: string }[]) => names(rows).filter((n) => ["anna", "bartek", "celina", "root"].includes(n));

  it("answers the full array of UserInfo without ?page, ordered by username", async () => {
    const res = await list(root);
    expect(res.status).toBe(200);
    expect(Array.isArray(res.json)).toBe(true);
    const [{ n }] = await query<{ n: number }>("select count(*)::int n from users");
    expect(res.json).toHaveLength(n);
    expect(known(res.json)).toEqual(["anna", "bartek", "celina", "root"]);
    const anna = res.json.find((u: { username: string }) => u.username === "anna");
    expect(anna).toEqual({
      id: expect.any(Number),
      username: "anna",
      first_name: "Anna",
      last_name: "Zimmer",
      email: "anna@corp.test",
      phone: null,
      is_active: true,
      enrolled: true,
      is_admin: false,
      mfa_enabled: false,
      totp_enabled: false,
      email_mfa_enabled: false,
      mfa_method: "None",
      groups: [],
      authorized_apps: [],
      ldap_pass_requires_change: false,
    });
    expect(res.json.find((u: { username: string }) => u.username === "root")).toMatchObject({ is_admin: true, groups: ["admin"] });
  });

  it("answers {data, pagination} with ?page and page_size, and the pages add up to the full list", async () => {
    const full = (await list(root)).json as { id: number }[];
    const total = full.length;
    const pages = Math.ceil(total / 2);
    const seen: number[] = [];
    for (let page = 1; page <= pages; page++) {
      const res = await list(root, `?page=${page}&page_size=2`);
      expect(res.status).toBe(200);
      expect(Object.keys(res.json).sort()).toEqual(["data", "pagination"]);
      expect(res.json.pagination).toEqual({
        current_page: page,
        page_size: 2,
        total_items: total,
        total_pages: pages,
        next_page: page < pages ? page + 1 : null,
      });
      expect(res.json.data.length).toBe(page < pages ? 2 : total - 2 * (pages - 1));
      seen.push(...res.json.data.map((u: { id: number }) => u.id));
    }
    expect(seen).toEqual(full.map((u) => u.id));
    const beyond = await list(root, `?page=${pages + 1}&page_size=2`);
    expect(beyond.json.data).toEqual([]);
    expect(beyond.json.pagination.next_page).toBeNull();
    // page_size defaults to 50
    expect((await list(root, "?page=1")).json.pagination.page_size).toBe(50);
  });

  it("searches username, first name, last name, e-mail and the full name, case-insensitively", async () => {
    const cases: [string, string[]][] = [
      ["zimm", ["anna"]], // last name
      ["BARTEK", ["bartek"]], // first name / username
      ["b.young@CORP", ["bartek"]], // e-mail
      ["celi", ["celina"]], // username
      ["Anna Zimmer", ["anna"]], // first + last
      ["corp.test", ["anna", "bartek", "celina"]],
      ["nobody-matches-this", []],
    ];
    for (const [q, want] of cases) {
      const res = await list(root, `?search=${encodeURIComponent(q)}`);
      expect(res.status, q).toBe(200);
      expect(names(res.json), q).toEqual(want);
    }
  });

  it("treats % and _ in the search as literal characters", async () => {
    expect((await list(root, `?search=${encodeURIComponent("%")}`)).json).toEqual([]);
    expect((await list(root, `?search=${encodeURIComponent("a_n")}`)).json).toEqual([]);
  });

  it("filters admins and ordinary users", async () => {
    const admins = (await list(root, "?filter=admins")).json;
    expect(names(admins)).toContain("root");
    expect(admins.every((u: { is_admin: boolean }) => u.is_admin)).toBe(true);
    const plain = (await list(root, "?filter=users")).json;
    expect(names(plain)).toEqual(expect.arrayContaining(["anna", "bartek", "celina"]));
    expect(names(plain)).not.toContain("root");
    expect(plain.every((u: { is_admin: boolean }) => !u.is_admin)).toBe(true);
    expect((await list(root, "?filter=all")).json).toHaveLength(admins.length + plain.length);
    // filter combines with search and with paging
    expect(names((await list(root, "?filter=admins&search=anna")).json)).toEqual([]);
    const paged = await list(root, "?filter=users&page=1&page_size=1");
    expect(paged.json.pagination.total_items).toBe(plain.length);
  });

  it("sorts by username or by name, both directions", async () => {
    expect(known((await list(root, "?sort=-username")).json)).toEqual(["root", "celina", "bartek", "anna"]);
    // by last name: Admin (root), Xu (celina), Young (bartek), Zimmer (anna)
    expect(known((await list(root, "?sort=name")).json)).toEqual(["root", "celina", "bartek", "anna"]);
    expect(known((await list(root, "?sort=-name")).json)).toEqual(["anna", "bartek", "celina", "root"]);
    expect(known((await list(root, "?sort=username")).json)).toEqual(["anna", "bartek", "celina", "root"]);
  });

  it("rejects a bad query with 400 naming the parameter", async () => {
    for (const [qs, field] of [
      ["?page=0", "page"],
      ["?page=abc", "page"],
      ["?page=1.5", "page"],
      ["?page=1&page_size=0", "page_size"],
      ["?page=1&page_size=1001", "page_size"],
      ["?filter=bogus", "filter"],
      ["?sort=email", "sort"],
      [`?search=${"x".repeat(257)}`, "search"],
    ]) {
      const res = await list(root, qs);
      expect(res.status, qs).toBe(400);
      expect(res.json.msg, qs).toMatch(new RegExp(`^${field}: `));
    }
  });

  it("answers 400 (not 500) to a search with a NUL byte", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await list(root, `?search=${encodeURIComponent("a\u0000b")}`);
    expect(res.status, res.text).toBe(400);
  });
});

// ------------------------------------------------------------------------------ create

describe("POST /user", () => {
  it("creates a user for enrollment (no password): 201 UserInfo, enrolled false, no sign-in", async () => {
    const res = await create(root, { username: "dawid", first_name: "Dawid", last_name: "Nowak", email: "Dawid@Corp.test" });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toEqual({
      id: expect.any(Number),
      username: "dawid",
      first_name: "Dawid",
      last_name: "Nowak",
      email: "Dawid@Corp.test",
      phone: null,
      is_active: true,
      enrolled: false,
      is_admin: false,
      mfa_enabled: false,
      totp_enabled: false,
      email_mfa_enabled: false,
      mfa_method: "None",
      groups: [],
      authorized_apps: [],
      ldap_pass_requires_change: false,
    });
    const row = await userRow("dawid");
    expect(row.id).toBe(res.json.id);
    expect(row.password_hash).toBeNull();
    expect((await tryLogin("dawid", DEFAULT_PASSWORD)).status).toBe(401);
    const added = await events("user_added");
    expect(added.at(-1)).toMatchObject({ username: "root", description: "Added user dawid" });
  });

  it("creates a user with a password (enrolled, can sign in) and a phone number", async () => {
    const res = await create(root, {
      username: "ewa",
      first_name: "Ewa",
      last_name: "Kowalska",
      email: "ewa@corp.test",
      phone: "+48 (22) 123-45-67",
      password: "Str0ng&Secret",
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ username: "ewa", enrolled: true, phone: "+48 (22) 123-45-67" });
    const row = await userRow("ewa");
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(row.password_hash).not.toContain("Str0ng&Secret");
    expect((await tryLogin("ewa", "Str0ng&Secret")).status).toBe(200);
  });

  it("ignores fields a client must not set (is_admin, groups, id, enrolled)", async () => {
    const res = await create(root, {
      username: "sneaky",
      first_name: "S",
      last_name: "N",
      email: "sneaky@corp.test",
      is_admin: true,
      groups: ["admin"],
      id: 1,
      enrolled: true,
      is_active: false,
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ username: "sneaky", is_admin: false, groups: [], enrolled: false, is_active: true });
    expect(res.json.id).not.toBe(1);
  });

  it("trims the username and e-mail", async () => {
    const res = await create(root, { username: "  trimmed  ", first_name: " T ", last_name: "R", email: "  trimmed@corp.test " });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ username: "trimmed", email: "trimmed@corp.test", first_name: "T" });
  });

  it("refuses a taken username in any case with 409 and changes nothing", async () => {
    const before = await counts();
    for (const username of ["dawid", "DAWID", "Dawid"]) {
      const res = await create(root, { username, first_name: "X", last_name: "Y", email: `${username}-other@corp.test` });
      expect(res.status, username).toBe(409);
      expect(res.json.msg).toBe(MSG.usernameTaken);
    }
    expect(await counts()).toEqual(before);
  });

  it("refuses a taken e-mail in any case with 409 and changes nothing", async () => {
    const before = await counts();
    for (const email of ["dawid@corp.test", "DAWID@CORP.TEST", "Dawid@Corp.test"]) {
      const res = await create(root, { username: `fresh${email.length}${email[0]}`, first_name: "X", last_name: "Y", email });
      expect(res.status, email).toBe(409);
      expect(res.json.msg).toBe(MSG.emailTaken);
    }
    expect(await counts()).toEqual(before);
  });
});

describe("POST /user/available", () => {
  it("answers 200 for a free username and 400 for a taken one (any case)", async () => {
    const free = await available(root, { username: "nobody-has-this" });
    expect(free.status).toBe(200);
    for (const username of ["dawid", "DAWID"]) {
      const taken = await available(root, { username });
      expect(taken.status, username).toBe(400);
      expect(taken.json.msg).toBe(MSG.usernameTaken);
    }
  });

  it("rejects an invalid username with 400 naming the field", async () => {
    for (const username of [".dot", "", 5, "a".repeat(64)]) {
      const res = await available(root, { username });
      expect(res.status, String(username)).toBe(400);
      expect(res.json.msg).toMatch(/^username: /);
    }
  });
});

// ------------------------------------------------------------------------------ details

describe("GET /user/{username}", () => {
  it("answers {user, devices, security_keys, biometric_enabled_devices} to an admin and to the user themselves", async () => {
    const res = await details(root, "anna");
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(["biometric_enabled_devices", "devices", "security_keys", "user"]);
    expect(res.json.biometric_enabled_devices).toEqual([]);
    expect(res.json.user).toMatchObject({ username: "anna", first_name: "Anna", last_name: "Zimmer", is_admin: false });
    expect(res.json.devices).toEqual([]);
    expect(res.json.security_keys).toEqual([]);
    const anna = await signIn("anna");
    const own = await details(anna, "anna");
    expect(own.status).toBe(200);
    expect(own.json.user.id).toBe(res.json.user.id);
    expect((await details(anna, "bartek")).status).toBe(403);
  });

  it("answers 404 for an unknown user", async () => {
    const res = await details(root, "ghost");
    expect(res.status).toBe(404);
    expect(res.json.msg).toBe("user not found");
  });

  it("answers 4xx (not 500) for a username with a NUL byte", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    for (const username of ["a\u0000b", "\u0000"]) {
      const res = await details(root, username);
      expect(res.status, res.text).toBeGreaterThanOrEqual(400);
      expect(res.status, res.text).toBeLessThan(500);
    }
  });
});

// ------------------------------------------------------------------------------ edit

describe("PUT /user/{username} by the user themselves", () => {
  let erin: Jar;
  let erinInfo: { username: string; first_name: string; last_name: string; email: string; phone: string | null; groups: string[] };

  beforeAll(async () => {
    await createUser({ username: "erin", firstName: "Erin", lastName: "Original", email: "erin@corp.test", groups: ["staff"] });
    erin = await signIn("erin");
    erinInfo = await userInfo(root, "erin");
  });

  it("may change first name, last name and phone", async () => {
    const res = await update(erin, "erin", { ...profile(erinInfo), first_name: "Erin-Marie", last_name: "Nowa", phone: "+48 600 700 800" });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ username: "erin", first_name: "Erin-Marie", last_name: "Nowa", phone: "+48 600 700 800", groups: ["staff"] });
    const row = await userRow("erin");
    expect(row).toMatchObject({ first_name: "Erin-Marie", last_name: "Nowa", phone: "+48 600 700 800" });
    erinInfo = res.json;
    const ev = await events("user_modified");
    expect(ev.at(-1)).toMatchObject({ username: "erin", description: "Modified user erin" });
  });

  it("may send their current groups and is_active unchanged", async () => {
    const res = await update(erin, "erin", { ...profile(erinInfo), groups: ["staff"], is_active: true });
    expect(res.status, res.text).toBe(200);
  });

  it("may not change username, e-mail, is_active or groups: 403 and nothing changed", async () => {
    const rowBefore = await userRow("erin");
    const before = await counts();
    const attempts: Record<string, unknown>[] = [
      { username: "erin2" },
      { email: "erin-new@corp.test" },
      { is_active: false },
      { groups: ["staff", "admin"] },
      { groups: [] },
    ];
    for (const change of attempts) {
      const res = await update(erin, "erin", { ...profile(erinInfo), first_name: "Hacked", ...change });
      expect(res.status, JSON.stringify(change)).toBe(403);
      expect(res.json.msg).toBe(MSG.adminOnly);
    }
    expect(await userRow("erin")).toEqual(rowBefore);
    expect(await counts()).toEqual(before);
    expect((await userInfo(root, "erin")).groups).toEqual(["staff"]);
    expect((await me(erin)).json.is_admin).toBe(false);
  });

  it("may not edit another user (403)", async () => {
    const anna = await userInfo(root, "anna");
    const res = await update(erin, "anna", { ...profile(anna), first_name: "Hacked" });
    expect(res.status).toBe(403);
    expect((await userRow("anna")).first_name).toBe("Anna");
  });
});

describe("PUT /user/{username} by an admin", () => {
  beforeAll(async () => {
    await createUser({ username: "filip", firstName: "Filip", lastName: "F", email: "filip@corp.test", groups: ["staff", "devs"] });
    await createUser({ username: "other", groups: ["ops"] });
  });

  it("renames a user and keeps their groups and sessions", async () => {
    const filip = await signIn("filip");
    const info = await userInfo(root, "filip");
    const res = await update(root, "filip", { ...profile(info), username: "filip2" });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ id: info.id, username: "filip2", groups: ["devs", "staff"] });
    expect((await details(root, "filip")).status).toBe(404);
    expect((await userInfo(root, "filip2")).groups).toEqual(["devs", "staff"]);
    const self = await me(filip);
    expect(self.status).toBe(200);
    expect(self.json.username).toBe("filip2");
    expect((await events("user_modified")).at(-1)?.description).toBe("Modified user filip (now filip2)");
  });

  it("replaces the groups with the list sent", async () => {
    const info = await userInfo(root, "filip2");
    const res = await update(root, "filip2", { ...profile(info), groups: ["ops"] });
    expect(res.status, res.text).toBe(200);
    expect(res.json.groups).toEqual(["ops"]);
    const empty = await update(root, "filip2", { ...profile(info), groups: [] });
    expect(empty.json.groups).toEqual([]);
    const back = await update(root, "filip2", { ...profile(info), groups: ["staff", "devs", "devs"] });
    expect(back.json.groups).toEqual(["devs", "staff"]);
  });

  it("refuses an unknown group with 400 and changes nothing", async () => {
    const info = await userInfo(root, "filip2");
    const rowBefore = await userRow("filip2");
    const before = await counts();
    const res = await update(root, "filip2", { ...profile(info), first_name: "Changed", groups: ["staff", "no-such-group"] });
    expect(res.status).toBe(400);
    expect(res.json.msg).toMatch(/no-such-group/);
    expect(await userRow("filip2")).toEqual(rowBefore);
    expect((await userInfo(root, "filip2")).groups).toEqual(["devs", "staff"]);
    expect(await counts()).toEqual(before);
  });

  it("refuses a taken username or e-mail (any case) with 409 and changes nothing", async () => {
    const info = await userInfo(root, "filip2");
    const rowBefore = await userRow("filip2");
    const taken = await update(root, "filip2", { ...profile(info), username: "OTHER" });
    expect(taken.status).toBe(409);
    expect(taken.json.msg).toBe(MSG.usernameTaken);
    const email = await update(root, "filip2", { ...profile(info), email: "OTHER@example.com" });
    expect(email.status).toBe(409);
    expect(email.json.msg).toBe(MSG.emailTaken);
    expect(await userRow("filip2")).toEqual(rowBefore);
  });

  it("may change a user's e-mail to another case of their own", async () => {
    const info = await userInfo(root, "filip2");
    const res = await update(root, "filip2", { ...profile(info), email: "FILIP@corp.test" });
    expect(res.status, res.text).toBe(200);
    expect(res.json.email).toBe("FILIP@corp.test");
  });

  it("answers 404 for an unknown user", async () => {
    const res = await update(root, "ghost", { username: "ghost", first_name: "G", last_name: "H", email: "ghost@corp.test" });
    expect(res.status).toBe(404);
  });
});

describe("disabling and enabling a user", () => {
  let frank: Jar;
  beforeAll(async () => {
    await createUser({ username: "frank" });
    frank = await signIn("frank");
  });

  it("ends the user's sessions, records user_disabled and refuses their sign-in", async () => {
    expect((await me(frank)).status).toBe(200);
    await signIn("frank"); // a second session
    expect(await sessionCount("frank")).toBe(2);
    const info = await userInfo(root, "frank");
    const res = await update(root, "frank", { ...profile(info), is_active: false });
    expect(res.status, res.text).toBe(200);
    expect(res.json.is_active).toBe(false);
    expect((await me(frank)).status).toBe(401);
    expect(await sessionCount("frank")).toBe(0);
    expect((await events("user_disabled")).at(-1)).toMatchObject({ username: "root", description: "Disabled user frank" });
    const login = await tryLogin("frank", DEFAULT_PASSWORD);
    expect(login.status).toBe(401);
    expect(login.json.msg).toBe("user account is disabled");
  });

  it("enabling again records user_enabled and lets them sign in", async () => {
    const info = await userInfo(root, "frank");
    const res = await update(root, "frank", { ...profile(info), is_active: true });
    expect(res.status).toBe(200);
    expect(res.json.is_active).toBe(true);
    expect((await events("user_enabled")).at(-1)?.description).toBe("Enabled user frank");
    frank = await signIn("frank");
    expect((await me(frank)).status).toBe(200);
  });
});

describe("DELETE /user/{username}", () => {
  it("deletes the user with their group memberships and sessions; their log entries stay", async () => {
    const gosia = await createUser({ username: "gosia", groups: ["staff", "devs"] });
    const jar = await signIn("gosia");
    expect(await sessionCount("gosia")).toBe(1);
    const res = await remove(root, "gosia");
    expect(res.status, res.text).toBe(200);
    expect(await query("select 1 from users where id = $1", [gosia.id])).toHaveLength(0);
    expect(await query("select 1 from group_users where user_id = $1", [gosia.id])).toHaveLength(0);
    expect(await query("select 1 from sessions where user_id = $1", [gosia.id])).toHaveLength(0);
    expect((await me(jar)).status).toBe(401);
    expect((await details(root, "gosia")).status).toBe(404);
    expect((await events("user_removed")).at(-1)).toMatchObject({ username: "root", description: "Removed user gosia" });
    // gosia's own sign-in record survives without the user id
    const logins = await query<{ user_id: number | null }>("select user_id from activity_log where username = 'gosia' and event = 'user_login'");
    expect(logins.length).toBeGreaterThan(0);
    expect(logins.every((l) => l.user_id === null)).toBe(true);
    // the groups themselves stay
    expect(await query("select 1 from groups where name in ('staff', 'devs')")).toHaveLength(2);
  });

  it("answers 404 for an unknown user", async () => {
    expect((await remove(root, "gosia")).status).toBe(404);
  });
});

// ------------------------------------------------------------------------------ last admin

describe("the last active admin cannot lose admin rights", () => {
  let rootInfo: { username: string; first_name: string; last_name: string; email: string; phone: string | null };

  beforeAll(async () => {
    // Only root is an active admin in this file at this point.
    const admins = await query<{ username: string }>(
      "select distinct u.username from users u join group_users gu on gu.user_id = u.id join groups g on g.id = gu.group_id where g.is_admin and u.is_active",
    );
    expect(admins.map((a) => a.username)).toEqual(["root"]);
    rootInfo = await userInfo(root, "root");
  });

  async function rootIsStillAdmin() {
    const self = await me(root);
    expect(self.status).toBe(200);
    expect(self.json).toMatchObject({ username: "root", is_active: true, is_admin: true, groups: ["admin"] });
    expect(await query("select 1 from groups where name = 'admin' and is_admin")).toHaveLength(1);
  }

  const paths: [string, () => Promise<{ status: number; json: { msg: string } }>][] = [
    ["DELETE /user/root", () => remove(root, "root")],
    ["PUT /user/root is_active false", () => update(root, "root", { ...profile(rootInfo), is_active: false })],
    ["PUT /user/root groups []", () => update(root, "root", { ...profile(rootInfo), groups: [] })],
    ["PUT /user/root groups [staff]", () => update(root, "root", { ...profile(rootInfo), groups: ["staff"] })],
    [
      "DELETE /group/admin/user/root",
      () => call(groupMemberDelete, { method: "DELETE", jar: root, params: { name: "admin", username: "root" } }),
    ],
    [
      "PUT /group/admin is_admin false",
      () => call(groupPut, { method: "PUT", jar: root, params: { name: "admin" }, body: { name: "admin", members: ["root"], is_admin: false } }),
    ],
    [
      "PUT /group/admin members []",
      () => call(groupPut, { method: "PUT", jar: root, params: { name: "admin" }, body: { name: "admin", members: [], is_admin: true } }),
    ],
    ["DELETE /group/admin", () => call(groupDelete, { method: "DELETE", jar: root, params: { name: "admin" } })],
  ];

  it.each(paths)("%s → 400 and nothing changed", async (_, attempt) => {
    const before = await counts();
    const rowBefore = await userRow("root");
    const res = await attempt();
    expect(res.status).toBe(400);
    expect(res.json.msg).toBe(MSG.lastAdmin);
    expect(await counts()).toEqual(before);
    expect(await userRow("root")).toEqual(rowBefore);
    await rootIsStillAdmin();
  });

  it("a disabled admin does not count as a remaining admin", async () => {
    await createUser({ username: "sleeper", isAdmin: true, isActive: false });
    const res = await call(groupMemberDelete, { method: "DELETE", jar: root, params: { name: "admin", username: "root" } });
    expect(res.status).toBe(400);
    expect(res.json.msg).toBe(MSG.lastAdmin);
    await rootIsStillAdmin();
    // nor may the only active admin disable themselves while the other admin is disabled
    const disable = await update(root, "root", { ...profile(rootInfo), is_active: false });
    expect(disable.status).toBe(400);
    await rootIsStillAdmin();
  });

  it("with a second active admin, removing one is fine on every path", async () => {
    await createUser({ username: "second", isAdmin: true });
    const second = await userInfo(root, "second");
    const readmit = () => query("insert into group_users (group_id, user_id) select g.id, u.id from groups g, users u where g.name = 'admin' and u.username = 'second' on conflict do nothing");
    const isAdmin = async () => (await userInfo(root, "second")).is_admin;

    const r1 = await call(groupMemberDelete, { method: "DELETE", jar: root, params: { name: "admin", username: "second" } });
    expect(r1.status, r1.text).toBe(200);
    expect(await isAdmin()).toBe(false);
    await readmit();

    const r2 = await update(root, "second", { ...profile(second), groups: [] });
    expect(r2.status, r2.text).toBe(200);
    expect(await isAdmin()).toBe(false);
    await readmit();

    const r3 = await update(root, "second", { ...profile(second), is_active: false });
    expect(r3.status, r3.text).toBe(200);
    const r4 = await update(root, "second", { ...profile(second), is_active: true });
    expect(r4.status).toBe(200);

    // the second admin may take root's rights away, and then is the last admin themselves
    const secondJar = await signIn("second");
    const r5 = await call(groupMemberDelete, { method: "DELETE", jar: secondJar, params: { name: "admin", username: "root" } });
    expect(r5.status, r5.text).toBe(200);
    expect((await me(root)).json.is_admin).toBe(false);
    const r6 = await call(groupMemberDelete, { method: "DELETE", jar: secondJar, params: { name: "admin", username: "second" } });
    expect(r6.status).toBe(400);
    expect(r6.json.msg).toBe(MSG.lastAdmin);
    const back = await update(secondJar, "root", { ...rootInfo, groups: ["admin"] });
    expect(back.status, back.text).toBe(200);
    await rootIsStillAdmin();

    const r7 = await remove(root, "second");
    expect(r7.status, r7.text).toBe(200);
    await rootIsStillAdmin();
  });

  it("admin rights from another is_admin group count: leaving `admin` is fine while still in `ops-admins`", async () => {
    await query("insert into groups (name, is_admin) values ('ops-admins', true)");
    await query("insert into group_users (group_id, user_id) select g.id, u.id from groups g, users u where g.name = 'ops-admins' and u.username = 'root'");
    const res = await call(groupMemberDelete, { method: "DELETE", jar: root, params: { name: "admin", username: "root" } });
    expect(res.status, res.text).toBe(200);
    expect((await me(root)).json).toMatchObject({ is_admin: true, groups: ["ops-admins"] });
    // now ops-admins is the last admin group: its admin flag cannot go
    const flag = await call(groupPut, { method: "PUT", jar: root, params: { name: "ops-admins" }, body: { name: "ops-admins", members: ["root"], is_admin: false } });
    expect(flag.status).toBe(400);
    expect(flag.json.msg).toBe(MSG.lastAdmin);
    // restore
    await update(root, "root", { ...rootInfo, groups: ["admin"] });
    await query("delete from groups where name = 'ops-admins'");
    await rootIsStillAdmin();
  });
});

// ------------------------------------------------------------------------------ passwords

describe("PUT /user/change_password", () => {
  let hania: Jar;
  beforeAll(async () => {
    await createUser({ username: "hania" });
    hania = await signIn("hania");
  });

  it("refuses a wrong old password with 400 and keeps the password", async () => {
    const res = await changeOwn(hania, { old_password: "Wrong-0ld-pass", new_password: "N3w-Passw0rd!" });
    expect(res.status).toBe(400);
    expect(res.json.msg).toBe("old_password: old password is incorrect");
    expect((await tryLogin("hania", DEFAULT_PASSWORD)).status).toBe(200);
  });

  it("refuses a weak new password with 400 naming new_password", async () => {
    for (const new_password of ["short1!", "nouppercase1!", "NOLOWERCASE1!", "NoDigits!!x", "NoSpecial123", "", null]) {
      const res = await changeOwn(hania, { old_password: DEFAULT_PASSWORD, new_password });
      expect(res.status, String(new_password)).toBe(400);
      expect(res.json.msg).toMatch(/^new_password: /);
    }
    expect((await tryLogin("hania", DEFAULT_PASSWORD)).status).toBe(200);
  });

  it("refuses a missing old password with 400", async () => {
    const res = await changeOwn(hania, { new_password: "N3w-Passw0rd!" });
    expect(res.status).toBe(400);
    expect(res.json.msg).toBe("old_password: field is required");
  });

  it("changes the password: the old one no longer signs in, the new one does", async () => {
    const res = await changeOwn(hania, { old_password: DEFAULT_PASSWORD, new_password: "N3w-Passw0rd!" });
    expect(res.status, res.text).toBe(200);
    const old = await tryLogin("hania", DEFAULT_PASSWORD);
    expect(old.status).toBe(401);
    expect((await tryLogin("hania", "N3w-Passw0rd!")).status).toBe(200);
    expect((await events("password_changed")).at(-1)).toMatchObject({ username: "hania" });
  });
});

describe("PUT /user/{username}/password (admin)", () => {
  it("sets the password and ends the target's sessions", async () => {
    await createUser({ username: "igor" });
    const igor = await signIn("igor");
    const res = await setPassword(root, "igor", { new_password: "Adm1n-Set-Pass" });
    expect(res.status, res.text).toBe(200);
    expect((await me(igor)).status).toBe(401);
    expect(await sessionCount("igor")).toBe(0);
    expect((await tryLogin("igor", DEFAULT_PASSWORD)).status).toBe(401);
    expect((await tryLogin("igor", "Adm1n-Set-Pass")).status).toBe(200);
    expect((await events("password_changed_by_admin")).at(-1)).toMatchObject({ username: "root", description: "Changed password of igor" });
  });

  it("marks a user created for enrollment as enrolled", async () => {
    await createUser({ username: "pending-enrol", password: null });
    await query("update users set enrolled = false where username = 'pending-enrol'");
    const res = await setPassword(root, "pending-enrol", { new_password: "Adm1n-Set-Pass" });
    expect(res.status).toBe(200);
    expect((await userInfo(root, "pending-enrol")).enrolled).toBe(true);
  });

  it("refuses the admin's own password (400) and leaves it unchanged", async () => {
    const res = await setPassword(root, "root", { new_password: "Adm1n-Set-Pass" });
    expect(res.status).toBe(400);
    expect(res.json.msg).toBe("use your profile to change your own password");
    expect((await tryLogin("root", DEFAULT_PASSWORD)).status).toBe(200);
    expect((await me(root)).status).toBe(200);
  });

  it("refuses a weak password (400 naming new_password) and an unknown user (404)", async () => {
    const weak = await setPassword(root, "igor", { new_password: "weak" });
    expect(weak.status).toBe(400);
    expect(weak.json.msg).toMatch(/^new_password: /);
    expect((await tryLogin("igor", "Adm1n-Set-Pass")).status).toBe(200);
    expect((await setPassword(root, "ghost", { new_password: "Adm1n-Set-Pass" })).status).toBe(404);
  });
});

describe("password reset by e-mail", () => {
  let sink: SmtpSink;
  beforeAll(async () => {
    await createUser({ username: "jan", firstName: "Jan", lastName: "Kot", email: "jan.kot@corp.test" });
    sink = await startSmtpSink();
  });
  afterAll(async () => {
    await sink.close();
  });

  async function requestToken(username: string): Promise<{ token: string; to: string[]; text: string }> {
    const n = sink.messages.length;
    const res = await startReset(root, username);
    expect(res.status, res.text).toBe(200);
    const mail = await sink.next(n);
    const text = decodeQuotedPrintable(mail.raw);
    const m = /password-reset\?token=([A-Za-z0-9_%-]+)/.exec(text);
    expect(m, text).toBeTruthy();
    return { token: decodeURIComponent(m![1]), to: mail.to, text };
  }

  it("without SMTP answers 400 with the documented message and stores no token", async () => {
    const before = await counts();
    const res = await startReset(root, "jan");
    expect(res.status).toBe(400);
    expect(res.json.msg).toBe(SMTP_NOT_CONFIGURED);
    expect(res.json.msg).toBe("SMTP must be configured before email tokens or notifications can be used");
    expect(await counts()).toEqual(before);
  });

  it("with SMTP e-mails a link with token= to the user's address; only the token's hash is stored", async () => {
    await useSmtpSink(sink);
    const { token, to, text } = await requestToken("jan");
    expect(to).toEqual(["jan.kot@corp.test"]);
    expect(text).toMatch(/Jan Kot/);
    expect(token.length).toBeGreaterThanOrEqual(32);
    const rows = await query<{ token_hash: string }>(
      "select token_hash from password_reset_tokens t join users u on u.id = t.user_id where u.username = 'jan'",
    );
    expect(rows).toEqual([{ token_hash: sha256hex(token) }]);
    expect((await events("password_reset")).at(-1)).toMatchObject({ username: "root" });
  });

  it("POST /password_reset sets the password once and ends the user's sessions", async () => {
    const { token } = await requestToken("jan");
    const jan = await signIn("jan");
    const res = await finishReset({ token, password: "R3set-Passw0rd" });
    expect(res.status, res.text).toBe(200);
    expect((await me(jan)).status).toBe(401);
    expect((await tryLogin("jan", DEFAULT_PASSWORD)).status).toBe(401);
    expect((await tryLogin("jan", "R3set-Passw0rd")).status).toBe(200);
    expect((await events("password_reset_completed")).at(-1)).toMatchObject({ username: "jan" });
    const again = await finishReset({ token, password: "An0ther-Passw0rd" });
    expect(again.status).toBe(400);
    expect(again.json.msg).toBe(MSG.resetInvalid);
    expect((await tryLogin("jan", "R3set-Passw0rd")).status).toBe(200);
  });

  it("a weak password is refused (400 naming password) without using up the token", async () => {
    const { token } = await requestToken("jan");
    const weak = await finishReset({ token, password: "weakpass" });
    expect(weak.status).toBe(400);
    expect(weak.json.msg).toMatch(/^password: /);
    const ok = await finishReset({ token, password: "Str0nger-Pass" });
    expect(ok.status, ok.text).toBe(200);
    expect((await tryLogin("jan", "Str0nger-Pass")).status).toBe(200);
  });

  it("an expired token is refused with 400 and the password stays", async () => {
    const { token } = await requestToken("jan");
    await query("update password_reset_tokens set expires_at = now() - interval '1 minute' where token_hash = $1", [sha256hex(token)]);
    const res = await finishReset({ token, password: "Exp1red-Pass!" });
    expect(res.status).toBe(400);
    expect(res.json.msg).toBe(MSG.resetInvalid);
    expect((await tryLogin("jan", "Str0nger-Pass")).status).toBe(200);
  });

  it("a newer reset e-mail makes the older link invalid", async () => {
    const first = await requestToken("jan");
    const second = await requestToken("jan");
    expect(first.token).not.toBe(second.token);
    expect((await finishReset({ token: first.token, password: "F1rst-Link-Pass" })).status).toBe(400);
    expect((await finishReset({ token: second.token, password: "Sec0nd-Link-Pass" })).status).toBe(200);
  });

  it("a failed send (503) keeps the earlier link working and stores no new token and no log entry", async () => {
    const earlier = await requestToken("jan");
    const tokensBefore = await query<{ token_hash: string }>(
      "select token_hash from password_reset_tokens t join users u on u.id = t.user_id where u.username = 'jan' and used_at is null",
    );
    const logged = (await events("password_reset")).length;
    await query("update settings set smtp_port = $1 where id = 1", [await freePort()]);
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const res = await startReset(root, "jan");
      expect(res.status, res.text).toBe(503);
      expect(errors).toHaveBeenCalled();
    } finally {
      errors.mockRestore();
      await useSmtpSink(sink);
    }
    expect(
      await query<{ token_hash: string }>(
        "select token_hash from password_reset_tokens t join users u on u.id = t.user_id where u.username = 'jan' and used_at is null",
      ),
    ).toEqual(tokensBefore);
    expect((await events("password_reset")).length).toBe(logged);
    expect((await finishReset({ token: earlier.token, password: "Ear1ier-Link-Pass" })).status).toBe(200);
  });

  it("an unknown or malformed token is refused with 400", async () => {
    const unknown = await finishReset({ token: "x".repeat(43), password: "Val1d-Passw0rd" });
    expect(unknown.status).toBe(400);
    expect(unknown.json.msg).toBe(MSG.resetInvalid);
    for (const token of ["short", "", 12345, null, "y".repeat(257)]) {
      const res = await finishReset({ token, password: "Val1d-Passw0rd" });
      expect(res.status, String(token)).toBe(400);
      expect(res.json.msg).toMatch(/^token: /);
    }
  });

  it("a disabled user gets no reset e-mail", async () => {
    await createUser({ username: "kasia", isActive: false });
    const n = sink.messages.length;
    const res = await startReset(root, "kasia");
    expect(res.status).toBe(400);
    expect(sink.messages.length).toBe(n);
  });

  it("answers 404 for an unknown user", async () => {
    expect((await startReset(root, "ghost")).status).toBe(404);
  });
});

// ------------------------------------------------------------------------------ bad input

describe("bad input of every kind: 400 and nothing changes", () => {
  const valid = { username: "valid-user", first_name: "Val", last_name: "Id", email: "valid-user@corp.test" };

  type Case = [label: string, body: unknown, msg: RegExp];
  const cases: Case[] = [
    // wrong types
    ["username: 5", { ...valid, username: 5 }, /^username: expected a value of another type$/],
    ["first_name: []", { ...valid, first_name: [] }, /^first_name: expected a value of another type$/],
    ["email: {}", { ...valid, email: {} }, /^email: expected a value of another type$/],
    ["last_name: true", { ...valid, last_name: true }, /^last_name: expected a value of another type$/],
    ["phone: 48123", { ...valid, phone: 48123 }, /^phone: /],
    ["password: 12345678", { ...valid, password: 12345678 }, /^password: /],
    // missing fields
    ["no username", { ...valid, username: undefined }, /^username: field is required$/],
    ["no first_name", { ...valid, first_name: undefined }, /^first_name: field is required$/],
    ["no last_name", { ...valid, last_name: undefined }, /^last_name: field is required$/],
    ["no email", { ...valid, email: undefined }, /^email: field is required$/],
    ["username null", { ...valid, username: null }, /^username: field is required$/],
    ["username empty", { ...valid, username: "" }, /^username: field is required$/],
    ["username blank", { ...valid, username: "   " }, /^username: field is required$/],
    ["first_name blank", { ...valid, first_name: "  " }, /^first_name: field is required$/],
    // not an object / not JSON
    ["empty body", "", /^username: field is required$/],
    ["invalid JSON", "{username: 'x'", /^request body is not valid JSON$/],
    ["an array", "[]", /./],
    ["null", "null", /./],
    ["a string", '"valid-user"', /./],
    ["a number", "42", /./],
    // size
    ["a 10 MB username", { ...valid, username: "a".repeat(10 * 1024 * 1024) }, /^request body is larger than 1048576 bytes$/],
    ["a body just over 1 MiB", { ...valid, first_name: "a".repeat(1024 * 1024) }, /^request body is larger than 1048576 bytes$/],
    // usernames
    ["username józef", { ...valid, username: "józef" }, /^username: field contains forbidden characters$/],
    ["username 用户", { ...valid, username: "用户" }, /^username: field contains forbidden characters$/],
    ["username a\\u0000b", { ...valid, username: "a\u0000b" }, /^username: field contains forbidden characters$/],
    ["username with a space", { ...valid, username: "a b" }, /^username: field contains forbidden characters$/],
    ["username with @", { ...valid, username: "a@b" }, /^username: field contains forbidden characters$/],
    ["username with /", { ...valid, username: "a/b" }, /^username: field contains forbidden characters$/],
    ["username .start", { ...valid, username: ".start" }, /^username: field contains forbidden characters$/],
    ["username -start", { ...valid, username: "-start" }, /^username: field contains forbidden characters$/],
    ["username _start", { ...valid, username: "_start" }, /^username: field contains forbidden characters$/],
    ["username of 64 chars", { ...valid, username: "u".repeat(64) }, /^username: maximum length exceeded$/],
    ["username with SQL", { ...valid, username: "x' OR '1'='1" }, /^username: field contains forbidden characters$/],
    ["username with HTML", { ...valid, username: "<b>x</b>" }, /^username: field contains forbidden characters$/],
    // names
    ["first_name <script>", { ...valid, first_name: "<script>alert(1)</script>" }, /^first_name: field contains forbidden characters$/],
    ["last_name with >", { ...valid, last_name: "a>b" }, /^last_name: field contains forbidden characters$/],
    ["first_name with NUL", { ...valid, first_name: "a\u0000b" }, /^first_name: field contains forbidden characters$/],
    ["first_name with a newline", { ...valid, first_name: "a\nb" }, /^first_name: field contains forbidden characters$/],
    ["last_name with ESC", { ...valid, last_name: "a\u001b[31mb" }, /^last_name: field contains forbidden characters$/],
    ["last_name with DEL", { ...valid, last_name: "a\u007fb" }, /^last_name: field contains forbidden characters$/],
    ["first_name of 129 chars", { ...valid, first_name: "f".repeat(129) }, /^first_name: maximum length exceeded$/],
    // e-mails
    ...[
      "plainaddress",
      "@corp.test",
      "user@",
      "user@corp",
      "us er@corp.test",
      "user@@corp.test",
      "user@corp..test",
      ".user@corp.test",
      "<user>@corp.test",
      "user@corp.test<script>",
      "user\u0000@corp.test",
      "user@corp.test, other@corp.test",
    ].map((email): Case => [`email ${JSON.stringify(email)}`, { ...valid, email }, /^email: enter a valid e-mail address$/]),
    ["email of 255 chars", { ...valid, email: `${"e".repeat(64)}@${"d".repeat(180)}.example.com` }, /^email: maximum length exceeded$/],
    // passwords: each rule
    ["password too short", { ...valid, password: "Sh0rt!x" }, /^password: minimum length not reached$/],
    ["password without digit", { ...valid, password: "NoDigits!!x" }, /^password: one digit required$/],
    ["password without special", { ...valid, password: "NoSpecial123" }, /^password: one special character required$/],
    ["password without upper", { ...valid, password: "nouppercase1!" }, /^password: one uppercase character required$/],
    ["password without lower", { ...valid, password: "NOLOWERCASE1!" }, /^password: one lowercase character required$/],
    ["password of 129 chars", { ...valid, password: `Aa1!${"x".repeat(125)}` }, /^password: maximum length exceeded$/],
    ["password empty", { ...valid, password: "" }, /^password: minimum length not reached$/],
    // phones
    ...["call me", "123abc", "+", "12", "<script>", "--123", "+48\n600700800", "12;DROP TABLE users"].map(
      (phone): Case => [`phone ${JSON.stringify(phone)}`, { ...valid, phone }, /^phone: enter a valid phone number$/],
    ),
    ["phone of 33 chars", { ...valid, phone: "1".repeat(33) }, /^phone: maximum length exceeded$/],
  ];

  it.each(cases)("POST /user with %s", async (_, body, msg) => {
    const before = await counts();
    vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await create(root, body);
    expect(res.status, res.text.slice(0, 300)).toBe(400);
    expect(res.json.msg).toMatch(msg);
    expect(await counts()).toEqual(before);
    expect((await query(TABLES_EXIST))[0]).toEqual({ u: true, a: true });
  });

  it("accepts the boundaries: 1 and 63 chars, dots, dashes and underscores inside", async () => {
    for (const username of ["a", "u".repeat(63), "a.b-c_d", "0start", "Mixed.Case"]) {
      const res = await create(root, { ...valid, username, email: `${username.length}-${username.slice(0, 5)}@corp.test` });
      expect(res.status, `${username}: ${res.text}`).toBe(201);
      expect(res.json.username).toBe(username);
    }
  });

  it("stores SQL text in names verbatim: it round-trips unchanged and the tables still exist", async () => {
    const lastName = "Robert'); DROP TABLE users;--";
    const firstName = "' OR '1'='1";
    const res = await create(root, { username: "bobby", first_name: firstName, last_name: lastName, email: "bobby@corp.test" });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ first_name: firstName, last_name: lastName });
    const got = await userInfo(root, "bobby");
    expect(got).toMatchObject({ first_name: firstName, last_name: lastName });
    expect(await userRow("bobby")).toMatchObject({ first_name: firstName, last_name: lastName });
    expect((await query(TABLES_EXIST))[0]).toEqual({ u: true, a: true });
    expect((await list(root, `?search=${encodeURIComponent("DROP TABLE")}`)).json.map((u: { username: string }) => u.username)).toEqual(["bobby"]);
  });

  it("accepts unicode, apostrophes and ampersands in names", async () => {
    const res = await create(root, { username: "jozef", first_name: "Józef", last_name: "O'Brien & 用户", email: "jozef+tag@corp.test" });
    expect(res.status, res.text).toBe(201);
    expect(await userInfo(root, "jozef")).toMatchObject({ first_name: "Józef", last_name: "O'Brien & 用户", email: "jozef+tag@corp.test" });
  });

  it("PUT /user/{username} rejects bad input with 400 and changes nothing", async () => {
    await createUser({ username: "lena", groups: ["staff"] });
    const info = await userInfo(root, "lena");
    const base = profile(info);
    const bad: [unknown, RegExp][] = [
      [{ ...base, username: 5 }, /^username: /],
      [{ ...base, username: "_lena" }, /^username: /],
      [{ ...base, email: {} }, /^email: /],
      [{ ...base, email: "not-an-email" }, /^email: /],
      [{ ...base, first_name: "<b>Lena</b>" }, /^first_name: /],
      [{ ...base, last_name: undefined }, /^last_name: /],
      [{ ...base, phone: "phone?" }, /^phone: /],
      [{ ...base, is_active: "no" }, /^is_active: /],
      [{ ...base, groups: "admin" }, /^groups: /],
      [{ ...base, groups: [1] }, /^groups\.0: /],
      [{ ...base, groups: ["g".repeat(65)] }, /^groups\.0: /],
      ["not json", /^request body is not valid JSON$/],
      [{ ...base, first_name: "x".repeat(2 * 1024 * 1024) }, /^request body is larger than/],
    ];
    const rowBefore = await userRow("lena");
    const before = await counts();
    for (const [body, msg] of bad) {
      const res = await update(root, "lena", body);
      expect(res.status, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect(res.json.msg).toMatch(msg);
    }
    expect(await userRow("lena")).toEqual(rowBefore);
    expect((await userInfo(root, "lena")).groups).toEqual(["staff"]);
    expect(await counts()).toEqual(before);
  });

  it("other user endpoints reject wrong types with 400", async () => {
    const before = await counts();
    expect((await available(root, { username: ["a"] })).status).toBe(400);
    expect((await changeOwn(root, { old_password: 5, new_password: "N3w-Passw0rd!" })).status).toBe(400);
    expect((await setPassword(root, "lena", { new_password: ["N3w-Passw0rd!"] })).status).toBe(400);
    expect((await finishReset({ token: { $ne: null }, password: "N3w-Passw0rd!" })).status).toBe(400);
    expect(await counts()).toEqual(before);
  });
});

describe("GET /user: the full list and the paged list agree", () => {
  it("every user appears with identical fields in both forms, for every filter and sort", async () => {
    await createUser({ username: "agree-admin", isAdmin: true, groups: ["agree-g2", "agree-g1"] });
    await createUser({ username: "agree-user", groups: ["agree-g1"], email: "Agree.User@Example.com" });
    const jar = await signIn("agree-admin");
    for (const qs of ["", "filter=admins", "filter=users", "sort=-name", "search=agree"]) {
      const full = await call(userList, { jar, path: `/api/v1/user?${qs}` });
      const paged = await call(userList, { jar, path: `/api/v1/user?${qs}${qs ? "&" : ""}page=1&page_size=1000` });
      expect(full.status).toBe(200);
      expect(full.json).toEqual(paged.json.data);
    }
    const full = await call(userList, { jar, path: "/api/v1/user?search=agree" });
    expect(full.json.map((u: { username: string; groups: string[]; is_admin: boolean }) => [u.username, u.groups, u.is_admin])).toEqual([
      ["agree-admin", ["admin", "agree-g1", "agree-g2"], true],
      ["agree-user", ["agree-g1"], false],
    ]);
  });
});

describe("GET /user: the cached full list follows every change", () => {
  const names = async (jar: Jar, qs = "") =>
    ((await call(userList, { jar, path: `/api/v1/user${qs}` })).json as { username: string; first_name: string; groups: string[]; is_admin: boolean }[]);

  it("changes made outside this process (plain SQL) show on the next request", async () => {
    await createUser({ username: "cache-admin", isAdmin: true });
    await createUser({ username: "cache-user", groups: ["cache-g"] });
    const jar = await signIn("cache-admin");
    const first = await names(jar);
    expect(first.find((u) => u.username === "cache-user")).toMatchObject({ first_name: expect.any(String), groups: ["cache-g"] });
    // The same request again is served from the cache and is identical.
    expect(await names(jar)).toEqual(first);

    // A user edited, a group renamed, a membership added, a user inserted and one deleted —
    // each straight in the database, as another console process would.
    await query("update users set first_name = 'Renamed' where username = 'cache-user'");
    let now = await names(jar);
    expect(now.find((u) => u.username === "cache-user")?.first_name).toBe("Renamed");
    await query("update groups set name = 'cache-g2' where name = 'cache-g'");
    now = await names(jar);
    expect(now.find((u) => u.username === "cache-user")?.groups).toEqual(["cache-g2"]);
    await query("insert into group_users (group_id, user_id) select g.id, u.id from groups g, users u where g.name = 'admin' and u.username = 'cache-user'");
    expect((await names(jar, "?filter=admins")).map((u) => u.username)).toContain("cache-user");
    expect((await names(jar)).find((u) => u.username === "cache-user")?.is_admin).toBe(true);
    await query("insert into users (username, email) values ('cache-new', 'cache-new@example.com')");
    expect((await names(jar)).map((u) => u.username)).toContain("cache-new");
    await query("delete from users where username = 'cache-new'");
    expect((await names(jar)).map((u) => u.username)).not.toContain("cache-new");
    await query("delete from group_users where user_id = (select id from users where username = 'cache-user') and group_id = (select id from groups where name = 'admin')");
    expect((await names(jar)).find((u) => u.username === "cache-user")).toMatchObject({ is_admin: false, groups: ["cache-g2"] });
    // A group's admin flag and its deletion reach its members' entries.
    await query("update groups set is_admin = true where name = 'cache-g2'");
    expect((await names(jar)).find((u) => u.username === "cache-user")?.is_admin).toBe(true);
    await query("delete from groups where name = 'cache-g2'");
    expect((await names(jar)).find((u) => u.username === "cache-user")).toMatchObject({ is_admin: false, groups: [] });
  });

  it("changes committed by two overlapping transactions both show (entries re-read by version stamp)", async () => {
    await createUser({ username: "stamp-admin", isAdmin: true });
    await createUser({ username: "stamp-a" });
    await createUser({ username: "stamp-b" });
    const jar = await signIn("stamp-admin");
    const firstName = async (username: string) => (await names(jar)).find((u) => u.username === username)?.first_name;
    await names(jar); // hold the list as of now
    const a = new pg.Client({ connectionString: process.env.DATABASE_URL });
    const b = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await a.connect();
    await b.connect();
    try {
      await a.query("begin");
      await a.query("update users set first_name = 'FromA' where username = 'stamp-a'");
      await b.query("begin");
      // B's change waits for A (both change the users list) and must not be stamped with the
      // version A commits, or a reader holding A's version would never re-read B's entry.
      const bUpdate = b.query("update users set first_name = 'FromB' where username = 'stamp-b'");
      await new Promise((r) => setTimeout(r, 100));
      await a.query("commit");
      expect(await firstName("stamp-a")).toBe("FromA");
      await bUpdate;
      expect(await firstName("stamp-b")).not.toBe("FromB");
      await b.query("commit");
      expect(await firstName("stamp-b")).toBe("FromB");
      expect(await firstName("stamp-a")).toBe("FromA");
    } finally {
      await a.end();
      await b.end();
    }
  });

  it("the held list equals one built from scratch after many kinds of change, for every filter and sort", async () => {
    await createUser({ username: "held-admin", isAdmin: true });
    const jar = await signIn("held-admin");
    const forms = ["", "?filter=admins", "?filter=users", "?sort=name", "?sort=-name", "?sort=-username"];
    const all = async () => Promise.all(forms.map((qs) => names(jar, qs)));
    await all();
    await query("insert into users (username, email, first_name, last_name) select 'held-'||g, 'held-'||g||'@example.com', 'F'||g, 'L'||(10-g) from generate_series(1, 8) g");
    await all();
    await query("update users set username = 'aaa-held-moved' where username = 'held-3'");
    await query("update users set last_name = 'AAA' where username = 'held-5'");
    await query("insert into group_users (group_id, user_id) select g.id, u.id from groups g, users u where g.name = 'admin' and u.username = 'held-6'");
    await query("delete from users where username = 'held-7'");
    const held = await all();
    resetUsersListCache();
    const fresh = await all();
    expect(held).toEqual(fresh);
    expect(held[0].map((u) => u.username)).toContain("aaa-held-moved");
    expect(held[0].map((u) => u.username)).not.toContain("held-7");
    expect(held[1].map((u) => u.username)).toContain("held-6");
    expect(held[2].map((u) => u.username)).not.toContain("held-6");
    expect(held[1].length + held[2].length).toBe(held[0].length);
  });

  it("a change rolled back leaves the list as it was", async () => {
    await createUser({ username: "cache-admin2", isAdmin: true });
    const jar = await signIn("cache-admin2");
    const before = await names(jar);
    await query("do $$ begin update users set first_name = 'Ghost'; raise exception 'roll back'; end $$").catch(() => {});
    expect(await names(jar)).toEqual(before);
    expect(before.some((u) => u.first_name === "Ghost")).toBe(false);
  });
});

