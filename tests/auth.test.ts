/**
 * Sign-in, session, logout, anti-forgery and input validation of /api/v1/auth*, /me,
 * /info and /settings_essentials, called through the real route wrapper on a real database.
 */
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { POST as authPost } from "@/app/api/v1/auth/route";
import { POST as logoutPost } from "@/app/api/v1/auth/logout/route";
import { GET as meGet } from "@/app/api/v1/me/route";
import { GET as infoGet } from "@/app/api/v1/info/route";
import { GET as essentialsGet } from "@/app/api/v1/settings_essentials/route";
import { sha256hex } from "@/lib/crypto";
import { closeDb } from "@/lib/db";
import { call, createUser, DEFAULT_PASSWORD, jarFrom, query, signIn, useFreshDatabase, type Jar } from "./helpers";

const AUTH = { method: "POST", path: "/api/v1/auth" } as const;
const LOGOUT = { method: "POST", path: "/api/v1/auth/logout" } as const;
const ME = { path: "/api/v1/me" } as const;

const login = (username: unknown, password: unknown, extra: Record<string, unknown> = {}) =>
  call(authPost, { ...AUTH, body: { username, password }, ...extra });

async function sessionCount(userId?: number): Promise<number> {
  const rows = await query<{ n: number }>(
    userId === undefined ? "select count(*)::int n from sessions" : "select count(*)::int n from sessions where user_id = $1",
    userId === undefined ? [] : [userId],
  );
  return rows[0].n;
}

afterEach(() => {
  delete process.env.DEFGUARD_COOKIE_INSECURE;
});

describe("POST /auth: sign-in", () => {
  let alice: Awaited<ReturnType<typeof createUser>>;
  beforeAll(async () => {
    alice = await createUser({
      username: "alice",
      email: "Alice.Smith@Example.com",
      firstName: "Alice",
      lastName: "Smith",
      isAdmin: true,
      groups: ["developers"],
    });
    await createUser({ username: "dora", isActive: false });
    await createUser({ username: "mfa-user", mfaEnabled: true });
    await createUser({ username: "nopass", password: null });
  });

  it("signs in by username and answers {user: UserInfo, url: null}", async () => {
    const res = await login("alice", DEFAULT_PASSWORD);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      user: {
        id: alice.id,
        username: "alice",
        first_name: "Alice",
        last_name: "Smith",
        email: "Alice.Smith@Example.com",
        phone: null,
        is_active: true,
        enrolled: true,
        is_admin: true,
        mfa_enabled: false,
        totp_enabled: false,
        email_mfa_enabled: false,
        mfa_method: "None",
        groups: ["admin", "developers"],
        authorized_apps: [],
        ldap_pass_requires_change: false,
      },
      url: null,
    });
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
  });

  it("signs in by username in another case", async () => {
    const res = await login("ALICE", DEFAULT_PASSWORD);
    expect(res.status).toBe(200);
    expect(res.json.user.username).toBe("alice");
  });

  it("signs in by e-mail, case-insensitively and with surrounding spaces", async () => {
    for (const name of ["alice.smith@example.com", "ALICE.SMITH@EXAMPLE.COM", "  Alice.Smith@Example.com "]) {
      const res = await login(name, DEFAULT_PASSWORD);
      expect(res.status, name).toBe(200);
      expect(res.json.user.id).toBe(alice.id);
    }
  });

  it("stores the session hashed, with the client IP and user agent, expiring in 7 days", async () => {
    const res = await login("alice", DEFAULT_PASSWORD, { headers: { "x-defguard-client-ip": "203.0.113.7", "user-agent": "ua-test/1.0" } });
    expect(res.status).toBe(200);
    const token = res.cookies.defguard_session.value;
    expect(token.length).toBeGreaterThanOrEqual(32);
    const raw = await query("select * from sessions where id = $1", [token]);
    expect(raw).toHaveLength(0); // never the token itself
    const [row] = await query<{ user_id: number; ip: string; user_agent: string; state: string; days: number }>(
      "select user_id, ip, user_agent, state, round(extract(epoch from expires_at - created_at) / 86400)::int days from sessions where id = $1",
      [sha256hex(token)],
    );
    expect(row).toMatchObject({ user_id: alice.id, ip: "203.0.113.7", user_agent: "ua-test/1.0", state: "authenticated", days: 7 });
  });

  it("gives every sign-in its own session", async () => {
    const a = await signIn("alice");
    const b = await signIn("alice");
    expect(a.defguard_session).not.toBe(b.defguard_session);
    expect(a["XSRF-TOKEN"]).not.toBe(b["XSRF-TOKEN"]);
  });

  it("rejects a wrong password with 401 and no session", async () => {
    const before = await sessionCount();
    const res = await login("alice", "Wrong-passw0rd");
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ msg: "invalid username or password" });
    expect(res.setCookie).toEqual([]);
    expect(await sessionCount()).toBe(before);
  });

  it("rejects an unknown user with the same 401 message", async () => {
    const res = await login("nobody-here", DEFAULT_PASSWORD);
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ msg: "invalid username or password" });
  });

  it("rejects a user without a password (enrollment pending)", async () => {
    const res = await login("nopass", "");
    expect(res.status).toBe(400); // empty password: validation
    const res2 = await login("nopass", DEFAULT_PASSWORD);
    expect(res2.status).toBe(401);
    expect(res2.json.msg).toBe("invalid username or password");
  });

  it("rejects a disabled user with 401 'user account is disabled' and opens no session", async () => {
    const [dora] = await query<{ id: number }>("select id from users where username = 'dora'");
    const res = await login("dora", DEFAULT_PASSWORD);
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ msg: "user account is disabled" });
    expect(res.setCookie).toEqual([]);
    expect(await sessionCount(dora.id)).toBe(0);
    // A wrong password does not reveal that the account exists and is disabled.
    const wrong = await login("dora", "Wrong-passw0rd");
    expect(wrong.status).toBe(401);
    expect(wrong.json.msg).toBe("invalid username or password");
  });

  it("asks an MFA user for the second factor (201) and the half session is not signed in", async () => {
    const res = await login("mfa-user", DEFAULT_PASSWORD);
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      mfa_method: "OneTimePassword",
      totp_available: true,
      webauthn_available: false,
      email_available: false,
    });
    const jar = jarFrom(res);
    expect(jar.defguard_session).toBeTruthy();
    const me = await call(meGet, { ...ME, jar });
    expect(me.status).toBe(401);
    const [row] = await query<{ state: string }>("select state from sessions where id = $1", [sha256hex(jar.defguard_session)]);
    expect(row.state).toBe("password_verified");
  });

  it("signs in even with a stale session cookie and no XSRF header (sign-in replaces the session)", async () => {
    const res = await call(authPost, {
      ...AUTH,
      body: { username: "alice", password: DEFAULT_PASSWORD },
      cookies: { defguard_session: "stale-token-that-does-not-exist" },
    });
    expect(res.status).toBe(200);
  });
});

describe("UserInfo: groups and admin role", () => {
  // Several users and groups whose ids differ, so that a subquery correlated with the wrong
  // table (e.g. groups.id instead of users.id) shows up.
  let admin: Awaited<ReturnType<typeof createUser>>;
  let staff: Awaited<ReturnType<typeof createUser>>;
  let loner: Awaited<ReturnType<typeof createUser>>;
  beforeAll(async () => {
    admin = await createUser({ username: "ui-admin", isAdmin: true, groups: ["ui-dev", "ui-ops"] });
    staff = await createUser({ username: "ui-staff", groups: ["ui-staff"] });
    loner = await createUser({ username: "ui-loner" });
  });

  it("lists all the admin's groups and marks it admin", async () => {
    const jar = await signIn("ui-admin");
    const me = await call(meGet, { ...ME, jar });
    expect(me.json).toMatchObject({ id: admin.id, is_admin: true, groups: ["admin", "ui-dev", "ui-ops"] });
  });

  it("does not make an ordinary user admin, and lists only the user's own groups", async () => {
    const res = await login("ui-staff", DEFAULT_PASSWORD);
    expect(res.json.user).toMatchObject({ id: staff.id, is_admin: false, groups: ["ui-staff"] });
    const me = await call(meGet, { ...ME, jar: jarFrom(res) });
    expect(me.json).toMatchObject({ id: staff.id, is_admin: false, groups: ["ui-staff"] });
  });

  it("reports no groups for a user without groups", async () => {
    const res = await login("ui-loner", DEFAULT_PASSWORD);
    expect(res.json.user).toMatchObject({ id: loner.id, is_admin: false, groups: [] });
  });
});

describe("session cookies", () => {
  beforeAll(async () => {
    await createUser({ username: "carol" });
  });

  it("sets defguard_session HttpOnly, SameSite=Lax, Path=/, 7 days, Secure by default", async () => {
    const res = await login("carol", DEFAULT_PASSWORD);
    expect(res.status).toBe(200);
    const s = res.cookies.defguard_session;
    expect(s).toBeDefined();
    expect(s.httpOnly).toBe(true);
    expect(s.sameSite?.toLowerCase()).toBe("lax");
    expect(s.path).toBe("/");
    expect(s.maxAge).toBe(7 * 24 * 3600);
    expect(s.secure).toBe(true);
  });

  it("sets a readable (not HttpOnly) XSRF-TOKEN with the same scope", async () => {
    const res = await login("carol", DEFAULT_PASSWORD);
    const x = res.cookies["XSRF-TOKEN"];
    expect(x).toBeDefined();
    expect(x.value.length).toBeGreaterThanOrEqual(16);
    expect(x.httpOnly).toBe(false);
    expect(x.path).toBe("/");
    expect(x.secure).toBe(true);
    expect(x.value).not.toBe(res.cookies.defguard_session.value);
  });

  it("leaves out Secure when DEFGUARD_COOKIE_INSECURE=1", async () => {
    process.env.DEFGUARD_COOKIE_INSECURE = "1";
    const res = await login("carol", DEFAULT_PASSWORD);
    expect(res.status).toBe(200);
    expect(res.cookies.defguard_session.secure).toBe(false);
    expect(res.cookies["XSRF-TOKEN"].secure).toBe(false);
    expect(res.cookies.defguard_session.httpOnly).toBe(true);
  });
});

describe("GET /me", () => {
  let bob: Awaited<ReturnType<typeof createUser>>;
  let jar: Jar;
  beforeAll(async () => {
    bob = await createUser({ username: "bob", groups: ["staff"] });
    jar = await signIn("bob");
  });

  it("answers the caller's UserInfo with a session cookie", async () => {
    const res = await call(meGet, { ...ME, jar });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: bob.id, username: "bob", is_admin: false, groups: ["staff"] });
  });

  it("answers 401 without a cookie, with an unknown cookie and with a mangled cookie", async () => {
    expect((await call(meGet, ME)).status).toBe(401);
    expect((await call(meGet, { ...ME, cookies: { defguard_session: "x".repeat(43) } })).status).toBe(401);
    expect((await call(meGet, { ...ME, cookies: { defguard_session: jar.defguard_session + "a" } })).status).toBe(401);
    const res = await call(meGet, ME);
    expect(res.json).toEqual({ msg: expect.any(String) });
  });

  it("does not accept the XSRF token or the stored hash as a session", async () => {
    expect((await call(meGet, { ...ME, cookies: { defguard_session: jar["XSRF-TOKEN"] } })).status).toBe(401);
    expect((await call(meGet, { ...ME, cookies: { defguard_session: sha256hex(jar.defguard_session) } })).status).toBe(401);
  });

  it("stops accepting an expired session", async () => {
    const j = await signIn("bob");
    expect((await call(meGet, { ...ME, jar: j })).status).toBe(200);
    await query("update sessions set expires_at = now() - interval '1 second' where id = $1", [sha256hex(j.defguard_session)]);
    expect((await call(meGet, { ...ME, jar: j })).status).toBe(401);
  });

  it("stops accepting the session of a user who was disabled", async () => {
    const eve = await createUser({ username: "eve" });
    const j = await signIn("eve");
    expect((await call(meGet, { ...ME, jar: j })).status).toBe(200);
    await query("update users set is_active = false where id = $1", [eve.id]);
    expect((await call(meGet, { ...ME, jar: j })).status).toBe(401);
  });

  it("sees changes made to the user (no stale cache)", async () => {
    await query("update users set first_name = 'Robert' where id = $1", [bob.id]);
    const res = await call(meGet, { ...ME, jar });
    expect(res.json.first_name).toBe("Robert");
  });
});

describe("POST /auth/logout", () => {
  beforeAll(async () => {
    await createUser({ username: "frank" });
  });

  it("deletes the session, clears both cookies, and the old cookie no longer works", async () => {
    const jar = await signIn("frank");
    const hash = sha256hex(jar.defguard_session);
    expect(await query("select 1 from sessions where id = $1", [hash])).toHaveLength(1);

    const res = await call(logoutPost, { ...LOGOUT, jar });
    expect(res.status).toBe(200);
    expect(res.cookies.defguard_session).toMatchObject({ value: "", maxAge: 0 });
    expect(res.cookies["XSRF-TOKEN"]).toMatchObject({ value: "", maxAge: 0 });
    expect(res.cookies.defguard_session.path).toBe("/");
    expect(await query("select 1 from sessions where id = $1", [hash])).toHaveLength(0);

    expect((await call(meGet, { ...ME, jar })).status).toBe(401);
    // Logging out again with the dead cookie: not signed in.
    expect((await call(logoutPost, { ...LOGOUT, jar })).status).toBe(401);
  });

  it("only ends the session it was called with", async () => {
    const a = await signIn("frank");
    const b = await signIn("frank");
    expect((await call(logoutPost, { ...LOGOUT, jar: a })).status).toBe(200);
    expect((await call(meGet, { ...ME, jar: a })).status).toBe(401);
    expect((await call(meGet, { ...ME, jar: b })).status).toBe(200);
  });

  it("answers 401 without a session", async () => {
    const res = await call(logoutPost, LOGOUT);
    expect(res.status).toBe(401);
  });

  it("lets a half-signed-in MFA session log out", async () => {
    await createUser({ username: "mfa-logout", mfaEnabled: true });
    const res = await login("mfa-logout", DEFAULT_PASSWORD);
    expect(res.status).toBe(201);
    const jar = jarFrom(res);
    const out = await call(logoutPost, { ...LOGOUT, jar });
    expect(out.status).toBe(200);
    expect(await query("select 1 from sessions where id = $1", [sha256hex(jar.defguard_session)])).toHaveLength(0);
  });
});

describe("anti-forgery (X-XSRF-TOKEN)", () => {
  beforeAll(async () => {
    await createUser({ username: "gina" });
    await createUser({ username: "hank" });
  });

  it("refuses a cookie-session POST without the header (403) and keeps the session", async () => {
    const jar = await signIn("gina");
    const res = await call(logoutPost, { ...LOGOUT, cookies: jar });
    expect(res.status).toBe(403);
    expect(res.json.msg).toMatch(/xsrf/i);
    expect(res.setCookie).toEqual([]);
    expect((await call(meGet, { ...ME, jar })).status).toBe(200);
  });

  it("refuses a wrong token (403)", async () => {
    const jar = await signIn("gina");
    for (const bad of ["wrong", "", jar["XSRF-TOKEN"].slice(0, -1), jar["XSRF-TOKEN"] + "x", jar.defguard_session]) {
      const res = await call(logoutPost, { ...LOGOUT, cookies: jar, headers: bad ? { "x-xsrf-token": bad } : {} });
      expect(res.status, JSON.stringify(bad)).toBe(403);
    }
    expect((await call(meGet, { ...ME, jar })).status).toBe(200);
  });

  it("refuses the token of another session, of the same user or of another user (403)", async () => {
    const a = await signIn("gina");
    const b = await signIn("gina");
    const c = await signIn("hank");
    for (const other of [b, c]) {
      const res = await call(logoutPost, { ...LOGOUT, cookies: a, headers: { "x-xsrf-token": other["XSRF-TOKEN"] } });
      expect(res.status).toBe(403);
    }
    expect((await call(meGet, { ...ME, jar: a })).status).toBe(200);
  });

  it("accepts the session's own token (200)", async () => {
    const jar = await signIn("gina");
    const res = await call(logoutPost, { ...LOGOUT, cookies: jar, headers: { "X-XSRF-TOKEN": jar["XSRF-TOKEN"] } });
    expect(res.status).toBe(200);
  });

  it("binds the token to the secret key: rotating the key invalidates old tokens", async () => {
    const jar = await signIn("gina");
    const old = process.env.DEFGUARD_SECRET_KEY;
    process.env.DEFGUARD_SECRET_KEY = "rotated-" + old;
    try {
      expect((await call(logoutPost, { ...LOGOUT, jar })).status).toBe(403);
    } finally {
      process.env.DEFGUARD_SECRET_KEY = old;
    }
    expect((await call(logoutPost, { ...LOGOUT, jar })).status).toBe(200);
  });

  it("does not ask for a token on GET", async () => {
    const jar = await signIn("gina");
    expect((await call(meGet, { ...ME, cookies: jar })).status).toBe(200);
  });
});

describe("POST /auth: input validation", () => {
  beforeAll(async () => {
    await createUser({ username: "ivan" });
  });

  async function nothingWritten(before: { sessions: number; failures: number }) {
    expect(await sessionCount()).toBe(before.sessions);
    const [f] = await query<{ n: number }>("select count(*)::int n from login_failures");
    expect(f.n).toBe(before.failures);
  }
  async function counts() {
    const [f] = await query<{ n: number }>("select count(*)::int n from login_failures");
    return { sessions: await sessionCount(), failures: f.n };
  }

  it("answers 400 naming `username` for an empty object", async () => {
    const before = await counts();
    const res = await call(authPost, { ...AUTH, body: {} });
    expect(res.status).toBe(400);
    expect(res.json.msg).toMatch(/username/);
    await nothingWritten(before);
  });

  it("answers 400 naming `password` when only the password is missing", async () => {
    const res = await call(authPost, { ...AUTH, body: { username: "ivan" } });
    expect(res.status).toBe(400);
    expect(res.json.msg).toMatch(/password/);
    expect(res.json.msg).not.toMatch(/username/);
  });

  it("answers 400 for a username of the wrong type", async () => {
    const before = await counts();
    for (const username of [5, true, ["ivan"], { a: 1 }]) {
      const res = await call(authPost, { ...AUTH, body: { username, password: DEFAULT_PASSWORD } });
      expect(res.status, JSON.stringify(username)).toBe(400);
      expect(res.json.msg).toMatch(/username/);
    }
    await nothingWritten(before);
  });

  it("answers 400 for an empty or whitespace username", async () => {
    for (const username of ["", "   "]) {
      const res = await call(authPost, { ...AUTH, body: { username, password: DEFAULT_PASSWORD } });
      expect(res.status).toBe(400);
      expect(res.json.msg).toMatch(/username/);
    }
  });

  it("answers 400 for invalid JSON and for a JSON value that is not an object", async () => {
    const before = await counts();
    for (const body of ['{"username": "ivan", ', "not json", "[1,2]", "null", '"ivan"']) {
      const res = await call(authPost, { ...AUTH, body });
      expect(res.status, body).toBe(400);
      expect(typeof res.json.msg).toBe("string");
    }
    await nothingWritten(before);
  });

  it("answers 400 for a body over 1 MiB, even when the rest is valid, and writes nothing", async () => {
    const before = await counts();
    const big = JSON.stringify({ username: "ivan", password: DEFAULT_PASSWORD, pad: "a".repeat(1024 * 1024) });
    const res = await call(authPost, { ...AUTH, body: big });
    expect(res.status).toBe(400);
    expect(res.json.msg).toMatch(/larger|too large|size/i);
    await nothingWritten(before);
  });

  it("answers 400 for a declared Content-Length over 1 MiB without reading the body", async () => {
    const res = await call(authPost, {
      ...AUTH,
      body: { username: "ivan", password: DEFAULT_PASSWORD },
      headers: { "content-length": String(2 * 1024 * 1024) },
    });
    expect(res.status).toBe(400);
    expect(res.json.msg).toMatch(/larger|too large|size/i);
  });

  it("does not let a very long (but valid-sized) password reach the hasher as a success", async () => {
    const res = await call(authPost, { ...AUTH, body: { username: "ivan", password: "A1!a".repeat(300) } });
    expect(res.status).toBe(400);
    expect(res.json.msg).toMatch(/password/);
  });
});

describe("GET /info and /settings_essentials", () => {
  it("/settings_essentials is public and fills in default logos", async () => {
    const res = await call(essentialsGet, { path: "/api/v1/settings_essentials" });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      instance_name: expect.any(String),
      main_logo_url: expect.stringMatching(/.+/),
      nav_logo_url: expect.stringMatching(/.+/),
      openid_enabled: expect.any(Boolean),
      wireguard_enabled: expect.any(Boolean),
      webhooks_enabled: expect.any(Boolean),
      worker_enabled: expect.any(Boolean),
      default_overview_view: expect.stringMatching(/^(grid|list)$/),
    });
  });

  it("/settings_essentials reflects the stored instance name", async () => {
    await query("insert into settings (id) values (1) on conflict do nothing");
    await query("update settings set instance_name = 'ACME VPN', main_logo_url = '' where id = 1");
    const res = await call(essentialsGet, { path: "/api/v1/settings_essentials" });
    expect(res.json.instance_name).toBe("ACME VPN");
    expect(res.json.main_logo_url).not.toBe("");
  });

  it("/info needs a session and answers the documented shape", async () => {
    expect((await call(infoGet, { path: "/api/v1/info" })).status).toBe(401);
    await createUser({ username: "info-user" });
    const jar = await signIn("info-user");
    const res = await call(infoGet, { path: "/api/v1/info", jar });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      version: expect.any(String),
      network_present: expect.any(Boolean),
      smtp_enabled: expect.any(Boolean),
      license_info: {
        enterprise: expect.any(Boolean),
        limits_exceeded: {
          user: expect.any(Boolean),
          device: expect.any(Boolean),
          wireguard_network: expect.any(Boolean),
          network_device: expect.any(Boolean),
        },
        any_limit_exceeded: expect.any(Boolean),
        is_enterprise_free: expect.any(Boolean),
      },
      ldap_info: { enabled: expect.any(Boolean), ad: expect.any(Boolean) },
      external_openid_enabled: expect.any(Boolean),
    });
    expect(res.json.license_info).toHaveProperty("tier");
  });
});

describe("a database without the settings row", () => {
  it("still signs in (services create the row on demand, as getSettings does)", async () => {
    const original = process.env.DATABASE_URL!;
    try {
      await useFreshDatabase();
      await query("delete from settings");
      await createUser({ username: "no-settings" });
      const res = await login("no-settings", DEFAULT_PASSWORD);
      expect(res.status, res.text).toBe(200);
    } finally {
      await closeDb();
      process.env.DATABASE_URL = original;
    }
  });
});
