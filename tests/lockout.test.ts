/**
 * Sign-in throttling (lib/auth/throttle.ts): failures are counted per (login, client address)
 * and per client address; an account-wide lock needs many failures from many addresses and is
 * short; a blocked attempt is refused with 429 and Retry-After and never extends the block.
 * The state lives in PostgreSQL (login_failures, sign_in_blocks, login_lockouts), so it
 * survives a new pool / another console process. Each test uses its own logins and addresses.
 */
import { describe, expect, it, vi } from "vitest";
import { POST as authPost } from "@/app/api/v1/auth/route";
import { closeDb } from "@/lib/db";
import { pruneAuthState } from "@/lib/auth/prune";
import { ACCOUNT, ADDRESS, LOGIN_FROM_ADDRESS } from "@/lib/auth/throttle";
import { call, createUser, DEFAULT_PASSWORD, query } from "./helpers";

const WRONG = "Wrong-passw0rd!";
const PAIR_MSG = /^Too many failed sign-in attempts for this account from your address\. Try again in \d+ (seconds|minutes)\.$/;
const ADDRESS_MSG = /^Too many failed sign-in attempts from your address\. Try again in \d+ seconds?\.$/;
const ACCOUNT_MSG = /^Too many failed sign-in attempts for this account from many places; it is locked for a short while\. Try again in \d+ seconds?\.$/;

let nextAddress = 1;
/** A fresh documentation address (198.18.0.0/15) for each caller. */
const newAddress = () => `198.18.${Math.floor(nextAddress / 250)}.${(nextAddress++ % 250) + 1}`;

const attempt = (username: string, password: string, ip: string) =>
  call(authPost, { method: "POST", path: "/api/v1/auth", body: { username, password }, headers: { "x-defguard-client-ip": ip } });

async function fail(username: string, times: number, ip: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < times; i++) statuses.push((await attempt(username, WRONG, ip)).status);
  return statuses;
}

/** Seconds until the block of (ip, login) ends (login "" = the whole address), or null. */
async function blockRemaining(ip: string, login: string): Promise<number | null> {
  const rows = await query<{ s: number }>(
    "select extract(epoch from blocked_until - now())::float8 s from sign_in_blocks where ip = $1 and login = $2",
    [ip, login],
  );
  return rows.length ? rows[0].s : null;
}

async function lockRemaining(login: string): Promise<number | null> {
  const rows = await query<{ s: number }>("select extract(epoch from locked_until - now())::float8 s from login_lockouts where login = $1", [login]);
  return rows.length ? rows[0].s : null;
}

async function failureCount(login: string, ip?: string): Promise<number> {
  const [r] = await query<{ n: number }>(
    "select count(*)::int n from login_failures where login = $1 and ($2::text is null or ip = $2)",
    [login, ip ?? null],
  );
  return r.n;
}

async function sessionCount(username: string): Promise<number> {
  const [s] = await query<{ n: number }>("select count(*)::int n from sessions s join users u on u.id = s.user_id where u.username = $1", [username]);
  return s.n;
}

describe("one login from one address", () => {
  it("answers 401 to the first 5 failures and 429 with Retry-After to the 6th, even with the right password", async () => {
    await createUser({ username: "lock1" });
    const ip = newAddress();
    expect(await fail("lock1", LOGIN_FROM_ADDRESS.maxFailures, ip)).toEqual([401, 401, 401, 401, 401]);
    const sixth = await attempt("lock1", DEFAULT_PASSWORD, ip);
    expect(sixth.status).toBe(429);
    expect(sixth.json.msg).toMatch(PAIR_MSG);
    expect(sixth.json.msg).toMatch(/in 5 minutes/);
    const retryAfter = Number(sixth.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(240);
    expect(retryAfter).toBeLessThanOrEqual(300);
    expect(sixth.setCookie).toEqual([]);
    expect(await sessionCount("lock1")).toBe(0);
  });

  it("does not block after 4 failures", async () => {
    await createUser({ username: "lock-four" });
    const ip = newAddress();
    expect(await fail("lock-four", 4, ip)).toEqual([401, 401, 401, 401]);
    expect((await attempt("lock-four", DEFAULT_PASSWORD, ip)).status).toBe(200);
  });

  it("blocks the pair for 5 minutes in sign_in_blocks, not the account", async () => {
    await createUser({ username: "lock-row" });
    const ip = newAddress();
    await fail("lock-row", 5, ip);
    const remaining = await blockRemaining(ip, "lock-row");
    expect(remaining!).toBeGreaterThan(240);
    expect(remaining!).toBeLessThanOrEqual(300);
    expect(await lockRemaining("lock-row")).toBeNull();
  });

  it("cannot lock the owner out: someone failing from one address does not block the login from another", async () => {
    await createUser({ username: "victim" });
    const attacker = newAddress();
    await fail("victim", 5, attacker);
    expect((await attempt("victim", DEFAULT_PASSWORD, attacker)).status).toBe(429);
    expect((await attempt("victim", DEFAULT_PASSWORD, newAddress())).status).toBe(200);
  });

  it("attempts during a block neither extend it nor count as failures", async () => {
    await createUser({ username: "lock-ext" });
    const ip = newAddress();
    await fail("lock-ext", 5, ip);
    // Pretend most of the block has passed: 20 s left.
    await query("update sign_in_blocks set blocked_until = now() + interval '20 seconds' where ip = $1 and login = 'lock-ext'", [ip]);
    const before = await failureCount("lock-ext", ip);
    for (const pw of [DEFAULT_PASSWORD, WRONG, WRONG]) {
      const res = await attempt("lock-ext", pw, ip);
      expect(res.status).toBe(429);
      expect(Number(res.headers.get("retry-after"))).toBeLessThanOrEqual(20);
      expect(res.json.msg).toMatch(/in (1\d|20) seconds/);
    }
    expect((await blockRemaining(ip, "lock-ext"))!).toBeLessThanOrEqual(20);
    expect(await failureCount("lock-ext", ip)).toBe(before);
  });

  it("lets the right password in once the block has ended, and counts from zero again", async () => {
    await createUser({ username: "lock-exp" });
    const ip = newAddress();
    await fail("lock-exp", 5, ip);
    expect((await attempt("lock-exp", DEFAULT_PASSWORD, ip)).status).toBe(429);
    await query("update sign_in_blocks set blocked_until = now() - interval '1 second' where ip = $1", [ip]);
    expect((await attempt("lock-exp", DEFAULT_PASSWORD, ip)).status).toBe(200);
    // An ended block must not turn the next single failure into a block.
    expect(await fail("lock-exp", 1, ip)).toEqual([401]);
    expect((await attempt("lock-exp", DEFAULT_PASSWORD, ip)).status).toBe(200);
  });

  it("an ended block starts from zero even with the failures before it still in the window", async () => {
    await createUser({ username: "lock-zero" });
    const ip = newAddress();
    await fail("lock-zero", 5, ip);
    await query("update sign_in_blocks set blocked_until = now() where ip = $1", [ip]);
    expect(await fail("lock-zero", 4, ip)).toEqual([401, 401, 401, 401]);
    expect((await attempt("lock-zero", DEFAULT_PASSWORD, ip)).status).toBe(200);
  });

  it("counts failures per login case-insensitively (Bob, BOB and bob are one login)", async () => {
    await createUser({ username: "lockcase" });
    const ip = newAddress();
    await fail("LockCase", 2, ip);
    await fail("LOCKCASE", 2, ip);
    await fail("lockcase", 1, ip);
    expect((await attempt("lockcase", DEFAULT_PASSWORD, ip)).status).toBe(429);
    expect((await attempt("LOCKCASE", DEFAULT_PASSWORD, ip)).status).toBe(429);
  });

  it("blocks unknown logins too, with the same answers as for real users", async () => {
    const ip = newAddress();
    expect(await fail("ghost-user", 5, ip)).toEqual([401, 401, 401, 401, 401]);
    const res = await attempt("ghost-user", WRONG, ip);
    expect(res.status).toBe(429);
    expect(res.json.msg).toMatch(PAIR_MSG);
  });

  it("does not block other logins from the same address", async () => {
    await createUser({ username: "lock-a" });
    await createUser({ username: "lock-b" });
    const ip = newAddress();
    await fail("lock-a", 5, ip);
    expect((await attempt("lock-a", DEFAULT_PASSWORD, ip)).status).toBe(429);
    expect((await attempt("lock-b", DEFAULT_PASSWORD, ip)).status).toBe(200);
  });

  it("keeps the block in the database: a new pool and fresh modules still see it", async () => {
    await createUser({ username: "lock-db" });
    const ip = newAddress();
    await fail("lock-db", 5, ip);
    // Another console process: nothing shared but PostgreSQL.
    await closeDb();
    vi.resetModules();
    const fresh = await import("@/app/api/v1/auth/route");
    expect(fresh.POST).not.toBe(authPost);
    const res = await call(fresh.POST, {
      method: "POST",
      path: "/api/v1/auth",
      body: { username: "lock-db", password: DEFAULT_PASSWORD },
      headers: { "x-defguard-client-ip": ip },
    });
    expect(res.status).toBe(429);
    await (await import("@/lib/db")).closeDb();
  });

  it("ignores failures older than the window", async () => {
    await createUser({ username: "lock-old" });
    const ip = newAddress();
    await query(
      "insert into login_failures (login, ip, at) select 'lock-old', $1, now() - make_interval(secs => $2 + g) from generate_series(1, 10) g",
      [ip, LOGIN_FROM_ADDRESS.windowSeconds],
    );
    expect(await fail("lock-old", 4, ip)).toEqual([401, 401, 401, 401]);
    expect((await attempt("lock-old", DEFAULT_PASSWORD, ip)).status).toBe(200);
  });

  it("counts failures within the window, also those recorded by another process", async () => {
    await createUser({ username: "lock-recent" });
    const ip = newAddress();
    await query("insert into login_failures (login, ip, at) select 'lock-recent', $1, now() - interval '50 seconds' from generate_series(1, 4)", [ip]);
    expect(await fail("lock-recent", 1, ip)).toEqual([401]);
    expect((await attempt("lock-recent", DEFAULT_PASSWORD, ip)).status).toBe(429);
  });

  it("clears this address's failures for the login on a successful sign-in, not other addresses'", async () => {
    await createUser({ username: "lock-clear" });
    const ip = newAddress();
    const other = newAddress();
    await fail("lock-clear", 4, ip);
    await fail("lock-clear", 2, other);
    expect((await attempt("lock-clear", DEFAULT_PASSWORD, ip)).status).toBe(200);
    expect(await failureCount("lock-clear", ip)).toBe(0);
    expect(await failureCount("lock-clear", other)).toBe(2);
    expect(await fail("lock-clear", 4, ip)).toEqual([401, 401, 401, 401]);
    expect((await attempt("lock-clear", DEFAULT_PASSWORD, ip)).status).toBe(200);
  });

  it("reaches the block under concurrent failures", async () => {
    await createUser({ username: "lock-race" });
    const ip = newAddress();
    const statuses = await Promise.all(Array.from({ length: 8 }, () => attempt("lock-race", WRONG, ip)));
    for (const r of statuses) expect([401, 429]).toContain(r.status);
    expect((await attempt("lock-race", DEFAULT_PASSWORD, ip)).status).toBe(429);
  });

  it("does not count malformed requests as failures", async () => {
    await createUser({ username: "lock-bad" });
    const ip = newAddress();
    for (let i = 0; i < 6; i++) {
      const res = await call(authPost, { method: "POST", path: "/api/v1/auth", body: { username: "lock-bad" }, headers: { "x-defguard-client-ip": ip } });
      expect(res.status).toBe(400);
    }
    expect(await failureCount("lock-bad")).toBe(0);
    expect((await attempt("lock-bad", DEFAULT_PASSWORD, ip)).status).toBe(200);
  });

  it("failures by username and by e-mail count toward one login", async () => {
    await createUser({ username: "alias", email: "Alias@Example.com" });
    const ip = newAddress();
    expect(await fail("alias", 3, ip)).toEqual([401, 401, 401]);
    expect(await fail("alias@example.com", 2, ip)).toEqual([401, 401]);
    expect((await attempt("ALIAS@example.com", DEFAULT_PASSWORD, ip)).status).toBe(429);
    expect((await attempt("alias", DEFAULT_PASSWORD, ip)).status).toBe(429);
  });
});

describe("one address across many logins (password spraying)", () => {
  it("refuses most of 60 logins tried from one address, with 429 and Retry-After", async () => {
    const ip = newAddress();
    const statuses: number[] = [];
    let refusal: Awaited<ReturnType<typeof attempt>> | null = null;
    for (let i = 0; i < 60; i++) {
      const res = await attempt(`spray${i}`, "Summer2026!", ip);
      statuses.push(res.status);
      if (res.status === 429 && !refusal) refusal = res;
    }
    expect(statuses.slice(0, ADDRESS.maxFailures).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(ADDRESS.maxFailures).every((s) => s === 429)).toBe(true);
    expect(refusal!.json.msg).toMatch(ADDRESS_MSG);
    expect(Number(refusal!.headers.get("retry-after"))).toBeGreaterThan(50);
    expect(Number(refusal!.headers.get("retry-after"))).toBeLessThanOrEqual(ADDRESS.blockSeconds);
  });

  it("the blocked address cannot sign in to any account meanwhile; other addresses can", async () => {
    await createUser({ username: "spray-owner" });
    const ip = newAddress();
    for (let i = 0; i < ADDRESS.maxFailures; i++) await attempt(`nobody${i}`, WRONG, ip);
    expect((await attempt("spray-owner", DEFAULT_PASSWORD, ip)).status).toBe(429);
    expect((await attempt("spray-owner", DEFAULT_PASSWORD, newAddress())).status).toBe(200);
    const remaining = await blockRemaining(ip, "");
    expect(remaining!).toBeGreaterThan(50);
    expect(remaining!).toBeLessThanOrEqual(60);
  });

  it("19 failures a minute from one address are not blocked", async () => {
    await createUser({ username: "spray-19" });
    const ip = newAddress();
    for (let i = 0; i < ADDRESS.maxFailures - 1; i++) expect((await attempt(`few${i}`, WRONG, ip)).status).toBe(401);
    expect((await attempt("spray-19", DEFAULT_PASSWORD, ip)).status).toBe(200);
  });
});

describe("one account from many addresses", () => {
  it("locks the account briefly after 30 failures from 6 addresses; attempts during the lock do not extend it", async () => {
    await createUser({ username: "target" });
    const addresses = Array.from({ length: 6 }, newAddress);
    for (const ip of addresses) await fail("target", 5, ip);
    const res = await attempt("target", DEFAULT_PASSWORD, newAddress());
    expect(res.status).toBe(429);
    expect(res.json.msg).toMatch(ACCOUNT_MSG);
    expect(Number(res.headers.get("retry-after"))).toBeLessThanOrEqual(ACCOUNT.lockSeconds);
    const left = await lockRemaining("target");
    expect(left!).toBeGreaterThan(ACCOUNT.lockSeconds - 15);
    expect(left!).toBeLessThanOrEqual(ACCOUNT.lockSeconds);

    await query("update login_lockouts set locked_until = now() + interval '5 seconds' where login = 'target'");
    expect((await attempt("target", WRONG, newAddress())).status).toBe(429);
    expect((await lockRemaining("target"))!).toBeLessThanOrEqual(5);

    // After the lock: the owner signs in from a fresh address, and one more failure does not lock again.
    // (The test ran in seconds: move its failures back to before the lock's end.)
    await query("update login_failures set at = at - interval '1 minute' where login = 'target'");
    await query("update login_lockouts set locked_until = now() - interval '30 seconds' where login = 'target'");
    expect(await fail("target", 1, newAddress())).toEqual([401]);
    const after = await attempt("target", DEFAULT_PASSWORD, newAddress());
    expect(after.status, after.text).toBe(200);
  });

  it("does not lock the account for many failures from fewer than 5 addresses", async () => {
    await createUser({ username: "few-places" });
    const a = newAddress();
    const b = newAddress();
    await query(
      "insert into login_failures (login, ip, at) select 'few-places', case when g % 2 = 0 then $1 else $2 end, now() - interval '2 minutes' from generate_series(1, 60) g",
      [a, b],
    );
    expect(await fail("few-places", 1, newAddress())).toEqual([401]);
    expect(await lockRemaining("few-places")).toBeNull();
    expect((await attempt("few-places", DEFAULT_PASSWORD, newAddress())).status).toBe(200);
  });
});

describe("pruning", () => {
  it("removes old failures and ended blocks, keeps current ones", async () => {
    const ip = newAddress();
    await query("insert into login_failures (login, ip, at) values ('prune-old', $1, now() - interval '2 hours'), ('prune-new', $1, now())", [ip]);
    await query(
      "insert into sign_in_blocks (ip, login, blocked_until) values ($1, 'prune-old', now() - interval '2 hours'), ($1, 'prune-new', now() + interval '1 minute')",
      [ip],
    );
    await query(
      "insert into login_lockouts (login, locked_until) values ('prune-old', now() - interval '2 hours'), ('prune-new', now() + interval '1 minute')",
    );
    const removed = await pruneAuthState();
    expect(removed.failures).toBeGreaterThanOrEqual(1);
    expect(await failureCount("prune-old")).toBe(0);
    expect(await failureCount("prune-new")).toBe(1);
    expect(await blockRemaining(ip, "prune-old")).toBeNull();
    expect(await blockRemaining(ip, "prune-new")).not.toBeNull();
    expect(await lockRemaining("prune-old")).toBeNull();
    expect(await lockRemaining("prune-new")).not.toBeNull();
  });
});
