/**
 * Login lockout (docs/api.md): 5 failures for one login within 60 s lock it for 5 minutes; every
 * attempt during the lock extends it; the answer is 429. The state lives in PostgreSQL
 * (login_failures, login_lockouts), so it survives a new pool / another console process.
 * Each test uses its own login name: the lock is per login.
 */
import { describe, expect, it, vi } from "vitest";
import { POST as authPost } from "@/app/api/v1/auth/route";
import { closeDb } from "@/lib/db";
import { call, createUser, DEFAULT_PASSWORD, query } from "./helpers";

const WRONG = "Wrong-passw0rd!";
const LOCKED_MSG = /too many/i;

const attempt = (username: string, password: string) =>
  call(authPost, { method: "POST", path: "/api/v1/auth", body: { username, password } });

async function fail(username: string, times: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < times; i++) statuses.push((await attempt(username, WRONG)).status);
  return statuses;
}

/** Seconds from now until the lock of `login` ends (negative when it has ended), or null. */
async function lockRemaining(login: string): Promise<number | null> {
  const rows = await query<{ s: number }>(
    "select extract(epoch from locked_until - now())::float8 s from login_lockouts where login = $1",
    [login],
  );
  return rows.length ? rows[0].s : null;
}

async function failureCount(login: string): Promise<number> {
  const [r] = await query<{ n: number }>("select count(*)::int n from login_failures where login = $1", [login]);
  return r.n;
}

describe("login lockout", () => {
  it("answers 401 to the first 5 failures and 429 to the 6th, even with the right password", async () => {
    await createUser({ username: "lock1" });
    expect(await fail("lock1", 5)).toEqual([401, 401, 401, 401, 401]);
    const sixth = await attempt("lock1", DEFAULT_PASSWORD);
    expect(sixth.status).toBe(429);
    expect(sixth.json.msg).toMatch(LOCKED_MSG);
    expect(sixth.setCookie).toEqual([]);
    const [s] = await query<{ n: number }>(
      "select count(*)::int n from sessions s join users u on u.id = s.user_id where u.username = 'lock1'",
    );
    expect(s.n).toBe(0);
  });

  it("does not lock after 4 failures", async () => {
    await createUser({ username: "lock-four" });
    expect(await fail("lock-four", 4)).toEqual([401, 401, 401, 401]);
    expect((await attempt("lock-four", DEFAULT_PASSWORD)).status).toBe(200);
  });

  it("locks for about 5 minutes, recorded in login_lockouts", async () => {
    await createUser({ username: "lock-row" });
    await fail("lock-row", 5);
    const remaining = await lockRemaining("lock-row");
    expect(remaining).not.toBeNull();
    expect(remaining!).toBeGreaterThan(240);
    expect(remaining!).toBeLessThanOrEqual(300);
  });

  it("counts failures per login case-insensitively (Bob, BOB and bob are one login)", async () => {
    await createUser({ username: "lockcase" });
    await fail("LockCase", 2);
    await fail("LOCKCASE", 2);
    await fail("lockcase", 1);
    expect((await attempt("lockcase", DEFAULT_PASSWORD)).status).toBe(429);
    expect((await attempt("LOCKCASE", DEFAULT_PASSWORD)).status).toBe(429);
  });

  it("locks unknown logins too, with the same answers as for real users", async () => {
    expect(await fail("ghost-user", 5)).toEqual([401, 401, 401, 401, 401]);
    expect((await attempt("ghost-user", WRONG)).status).toBe(429);
  });

  it("does not lock other logins", async () => {
    await createUser({ username: "lock-a" });
    await createUser({ username: "lock-b" });
    await fail("lock-a", 5);
    expect((await attempt("lock-a", DEFAULT_PASSWORD)).status).toBe(429);
    expect((await attempt("lock-b", DEFAULT_PASSWORD)).status).toBe(200);
  });

  it("keeps the lock in the database: a new pool and fresh modules still see it", async () => {
    await createUser({ username: "lock-db" });
    await fail("lock-db", 5);
    // Another console process: nothing shared but PostgreSQL.
    await closeDb();
    vi.resetModules();
    const fresh = await import("@/app/api/v1/auth/route");
    expect(fresh.POST).not.toBe(authPost);
    const res = await call(fresh.POST, { method: "POST", path: "/api/v1/auth", body: { username: "lock-db", password: DEFAULT_PASSWORD } });
    expect(res.status).toBe(429);
    await (await import("@/lib/db")).closeDb();
  });

  it("extends the lock on every attempt made during it", async () => {
    await createUser({ username: "lock-ext" });
    await fail("lock-ext", 5);
    // Pretend most of the lock has passed: 20 s left.
    await query("update login_lockouts set locked_until = now() + interval '20 seconds' where login = 'lock-ext'");
    expect(await lockRemaining("lock-ext")).toBeLessThanOrEqual(20);

    expect((await attempt("lock-ext", DEFAULT_PASSWORD)).status).toBe(429);
    const afterRight = await lockRemaining("lock-ext");
    expect(afterRight!).toBeGreaterThan(240);

    await query("update login_lockouts set locked_until = now() + interval '20 seconds' where login = 'lock-ext'");
    expect((await attempt("lock-ext", WRONG)).status).toBe(429);
    expect((await lockRemaining("lock-ext"))!).toBeGreaterThan(240);
  });

  it("lets the right password in once the lock has expired, and it starts counting from zero", async () => {
    await createUser({ username: "lock-exp" });
    await fail("lock-exp", 5);
    expect((await attempt("lock-exp", DEFAULT_PASSWORD)).status).toBe(429);
    await query("update login_lockouts set locked_until = now() - interval '1 second' where login = 'lock-exp'");
    expect((await attempt("lock-exp", DEFAULT_PASSWORD)).status).toBe(200);
    // An expired lock must not turn the next single failure into a lock.
    expect(await fail("lock-exp", 1)).toEqual([401]);
    expect((await attempt("lock-exp", DEFAULT_PASSWORD)).status).toBe(200);
  });

  it("ignores failures older than 60 s", async () => {
    await createUser({ username: "lock-old" });
    await query(
      "insert into login_failures (login, at) select 'lock-old', now() - interval '61 seconds' - (g * interval '1 second') from generate_series(1, 10) g",
    );
    // 10 old + 4 new failures: still not locked.
    expect(await fail("lock-old", 4)).toEqual([401, 401, 401, 401]);
    expect((await attempt("lock-old", DEFAULT_PASSWORD)).status).toBe(200);
  });

  it("counts failures within 60 s, also those recorded by another process", async () => {
    await createUser({ username: "lock-recent" });
    await query(
      "insert into login_failures (login, at) select 'lock-recent', now() - interval '50 seconds' from generate_series(1, 4)",
    );
    expect(await fail("lock-recent", 1)).toEqual([401]);
    expect((await attempt("lock-recent", DEFAULT_PASSWORD)).status).toBe(429);
  });

  it("clears the failures on a successful sign-in", async () => {
    await createUser({ username: "lock-clear" });
    await fail("lock-clear", 4);
    expect(await failureCount("lock-clear")).toBe(4);
    expect((await attempt("lock-clear", DEFAULT_PASSWORD)).status).toBe(200);
    expect(await failureCount("lock-clear")).toBe(0);
    // Another 4 failures after the success: still no lock.
    expect(await fail("lock-clear", 4)).toEqual([401, 401, 401, 401]);
    expect((await attempt("lock-clear", DEFAULT_PASSWORD)).status).toBe(200);
  });

  it("reaches the lock under concurrent failures", async () => {
    await createUser({ username: "lock-race" });
    const statuses = await Promise.all(Array.from({ length: 8 }, () => attempt("lock-race", WRONG)));
    for (const r of statuses) expect([401, 429]).toContain(r.status);
    expect((await attempt("lock-race", DEFAULT_PASSWORD)).status).toBe(429);
  });

  it("does not count malformed requests as failures", async () => {
    await createUser({ username: "lock-bad" });
    for (let i = 0; i < 6; i++) {
      const res = await call(authPost, { method: "POST", path: "/api/v1/auth", body: { username: "lock-bad" } });
      expect(res.status).toBe(400);
    }
    expect(await failureCount("lock-bad")).toBe(0);
    expect((await attempt("lock-bad", DEFAULT_PASSWORD)).status).toBe(200);
  });
});

describe("lockout per account", () => {
  it("failures by username and by e-mail count toward one lock", async () => {
    await createUser({ username: "alias", email: "Alias@Example.com" });
    expect(await fail("alias", 3)).toEqual([401, 401, 401]);
    expect(await fail("alias@example.com", 2)).toEqual([401, 401]);
    const viaEmail = await attempt("ALIAS@example.com", DEFAULT_PASSWORD);
    expect(viaEmail.status).toBe(429);
    expect((await attempt("alias", DEFAULT_PASSWORD)).status).toBe(429);
  });
});
