/**
 * Session lifetime rules: a session waiting for its second factor lives at most 10 minutes; a
 * user holds at most DEFGUARD_MAX_SESSIONS_PER_USER live sessions (oldest ended first);
 * changing one's own password ends the other sessions; an admin setting a password,
 * disabling or deleting a user ends all of that user's sessions at once; the pruning job
 * removes expired sessions and used or expired e-mail codes. Sign-in and logout are logged in
 * the same transaction as the session change.
 */
import { afterEach, describe, expect, it } from "vitest";
import { GET as meGet } from "@/app/api/v1/me/route";
import { POST as logoutPost } from "@/app/api/v1/auth/logout/route";
import { POST as totpVerifyPost } from "@/app/api/v1/auth/totp/verify/route";
import { PUT as changePasswordPut } from "@/app/api/v1/user/change_password/route";
import { PUT as setPasswordPut } from "@/app/api/v1/user/[username]/password/route";
import { DELETE as userDelete, PUT as userPut } from "@/app/api/v1/user/[username]/route";
import { POST as authPost } from "@/app/api/v1/auth/route";
import { pruneAuthState } from "@/lib/auth/prune";
import { SESSION_COOKIE } from "@/lib/auth/session";
import { sha256hex } from "@/lib/crypto";
import { call, createUser, DEFAULT_PASSWORD, jarFrom, query, signIn, type Jar } from "./helpers";

const NEW_PASSWORD = "N3w-passw0rd!x";
const me = (jar: Jar) => call(meGet, { jar });

async function sessionsOf(username: string): Promise<{ id: string; state: string; ttl: number }[]> {
  return query(
    "select s.id, s.state, extract(epoch from s.expires_at - now())::float8 ttl from sessions s join users u on u.id = s.user_id where u.username = $1 order by s.created_at",
    [username],
  );
}

afterEach(() => {
  delete process.env.DEFGUARD_MAX_SESSIONS_PER_USER;
});

describe("a session waiting for its second factor", () => {
  it("lives at most 10 minutes, then the second factor is refused with 401", async () => {
    await createUser({ username: "pend", mfaEnabled: true });
    const res = await call(authPost, { method: "POST", path: "/api/v1/auth", body: { username: "pend", password: DEFAULT_PASSWORD } });
    expect(res.status).toBe(201);
    const [s] = await sessionsOf("pend");
    expect(s.state).toBe("password_verified");
    expect(s.ttl).toBeGreaterThan(590);
    expect(s.ttl).toBeLessThanOrEqual(600);
    await query("update sessions set expires_at = now() - interval '1 second' where id = $1", [s.id]);
    const late = await call(totpVerifyPost, { method: "POST", jar: jarFrom(res), body: { code: "123456" } });
    expect(late.status).toBe(401);
    expect(late.json.msg).toBe("not signed in");
  });

  it("a signed-in session lives 7 days", async () => {
    await createUser({ username: "week" });
    await signIn("week");
    const [s] = await sessionsOf("week");
    expect(s.ttl).toBeGreaterThan(7 * 86400 - 60);
  });
});

describe("sessions per user", () => {
  it("keeps at most DEFGUARD_MAX_SESSIONS_PER_USER live sessions and ends the oldest first", async () => {
    process.env.DEFGUARD_MAX_SESSIONS_PER_USER = "3";
    await createUser({ username: "many" });
    const jars: Jar[] = [];
    for (let i = 0; i < 5; i++) jars.push(await signIn("many"));
    expect(await sessionsOf("many")).toHaveLength(3);
    expect((await me(jars[0])).status).toBe(401);
    expect((await me(jars[1])).status).toBe(401);
    for (const j of jars.slice(2)) expect((await me(j)).status).toBe(200);
  });

  it("defaults to 10", async () => {
    await createUser({ username: "ten" });
    const jars: Jar[] = [];
    for (let i = 0; i < 11; i++) jars.push(await signIn("ten"));
    expect(await sessionsOf("ten")).toHaveLength(10);
    expect((await me(jars[0])).status).toBe(401);
    expect((await me(jars[10])).status).toBe(200);
  });

  it("does not touch other users' sessions", async () => {
    process.env.DEFGUARD_MAX_SESSIONS_PER_USER = "1";
    await createUser({ username: "solo-a" });
    await createUser({ username: "solo-b" });
    const a = await signIn("solo-a");
    await signIn("solo-b");
    await signIn("solo-b");
    expect((await me(a)).status).toBe(200);
    expect(await sessionsOf("solo-b")).toHaveLength(1);
  });
});

describe("password changes and account changes end sessions", () => {
  it("changing one's own password ends the other sessions and keeps this one", async () => {
    await createUser({ username: "chpw" });
    const here = await signIn("chpw");
    const elsewhere = await signIn("chpw");
    const res = await call(changePasswordPut, { method: "PUT", jar: here, body: { old_password: DEFAULT_PASSWORD, new_password: NEW_PASSWORD } });
    expect(res.status, res.text).toBe(200);
    expect((await me(here)).status).toBe(200);
    expect((await me(elsewhere)).status).toBe(401);
    expect(await sessionsOf("chpw")).toHaveLength(1);
  });

  it("a refused password change (wrong old password) ends nothing", async () => {
    await createUser({ username: "chpw-bad" });
    const here = await signIn("chpw-bad");
    const elsewhere = await signIn("chpw-bad");
    const res = await call(changePasswordPut, { method: "PUT", jar: here, body: { old_password: "nope-Nope-1", new_password: NEW_PASSWORD } });
    expect(res.status).toBe(400);
    expect((await me(elsewhere)).status).toBe(200);
  });

  it("an admin setting, disabling or deleting ends all of the user's sessions at once", async () => {
    await createUser({ username: "boss", isAdmin: true });
    const admin = await signIn("boss");
    for (const action of ["password", "disable", "delete"] as const) {
      const username = `ended-${action}`;
      await createUser({ username });
      const jars = [await signIn(username), await signIn(username)];
      let res;
      if (action === "password") {
        res = await call(setPasswordPut, { method: "PUT", jar: admin, params: { username }, body: { new_password: NEW_PASSWORD } });
      } else if (action === "disable") {
        res = await call(userPut, {
          method: "PUT",
          jar: admin,
          params: { username },
          body: { username, first_name: "Test", last_name: username, email: `${username}@example.com`, phone: null, is_active: false },
        });
      } else {
        res = await call(userDelete, { method: "DELETE", jar: admin, params: { username } });
      }
      expect(res.status, `${action}: ${res.text}`).toBe(200);
      for (const j of jars) expect((await me(j)).status, action).toBe(401);
      expect(await sessionsOf(username), action).toHaveLength(0);
    }
  });
});

describe("activity of sign-in and sign-out", () => {
  it("records user_login with the session and user_logout with its end", async () => {
    await createUser({ username: "logged" });
    const jar = await signIn("logged");
    const out = await call(logoutPost, { method: "POST", jar });
    expect(out.status).toBe(200);
    const rows = await query<{ event: string }>("select event from activity_log where username = 'logged' order by id");
    expect(rows.map((r) => r.event)).toEqual(["user_login", "user_logout"]);
    expect(await query("select 1 from sessions where id = $1", [sha256hex(jar[SESSION_COOKIE])])).toHaveLength(0);
  });
});

describe("pruning", () => {
  it("removes expired sessions and used or expired e-mail codes, keeps live ones", async () => {
    const u = await createUser({ username: "prune-me" });
    const live = await signIn("prune-me");
    const dead = await signIn("prune-me");
    await query("update sessions set expires_at = now() - interval '1 minute' where id = $1", [sha256hex(dead[SESSION_COOKIE])]);
    await query(
      `insert into email_codes (user_id, purpose, code_hash, expires_at, used_at) values
        ($1, 'login', 'live', now() + interval '5 minutes', null),
        ($1, 'login', 'expired', now() - interval '1 minute', null),
        ($1, 'setup', 'used', now() + interval '5 minutes', now())`,
      [u.id],
    );
    const removed = await pruneAuthState();
    expect(removed.sessions).toBeGreaterThanOrEqual(1);
    expect((await me(live)).status).toBe(200);
    expect(await query("select 1 from sessions where id = $1", [sha256hex(dead[SESSION_COOKIE])])).toHaveLength(0);
    const codes = await query<{ code_hash: string }>("select code_hash from email_codes where user_id = $1", [u.id]);
    expect(codes.map((c) => c.code_hash)).toEqual(["live"]);
  });
});
