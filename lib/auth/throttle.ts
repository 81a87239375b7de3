import "server-only";
import { transaction } from "../events";
import { and, eq, sql } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { loginFailures } from "../db/schema";
import { tooManyRequests } from "../errors";

/**
 * Sign-in throttling. Failed attempts (a wrong password or second factor) are kept in
 * login_failures with the login and the client address, and three rules block further
 * attempts; a blocked attempt is refused with 429 and Retry-After before the password is
 * looked at, and is neither counted nor extends the block:
 * - one login from one address: LOGIN_FROM_ADDRESS.maxFailures within its window block that
 *   pair (a person mistyping, or guessing one account from one place);
 * - one address: ADDRESS.maxFailures within a minute block the address for every login
 *   (one password sprayed across many logins);
 * - one account from anywhere: only ACCOUNT.maxFailures from at least ACCOUNT.minAddresses
 *   different addresses lock the account itself, and only briefly, so nobody can keep an
 *   account locked from one address.
 * Only failures after the end of the previous block of the same kind count, so an expired
 * block starts from zero.
 */
export const LOGIN_FROM_ADDRESS = { maxFailures: 5, windowSeconds: 300, blockSeconds: 300 } as const;
export const ADDRESS = { maxFailures: 20, windowSeconds: 60, blockSeconds: 60 } as const;
export const ACCOUNT = { maxFailures: 30, minAddresses: 5, windowSeconds: 600, lockSeconds: 60 } as const;
/** Failures and ended blocks are kept this long, then pruned (lib/auth/prune.ts). */
export const THROTTLE_RETENTION_SECONDS = 3600;

export const THROTTLE_MSG = {
  loginFromAddress: (wait: string) =>
    `Too many failed sign-in attempts for this account from your address. Try again in ${wait}.`,
  address: (wait: string) => `Too many failed sign-in attempts from your address. Try again in ${wait}.`,
  account: (wait: string) =>
    `Too many failed sign-in attempts for this account from many places; it is locked for a short while. Try again in ${wait}.`,
} as const;

// Advisory lock namespaces (two-key form) serialising failures per login and per address.
const LOCK_LOGIN = 72_410;
const LOCK_ADDRESS = 72_411;

export function normaliseLogin(login: string): string {
  return login.trim().toLowerCase();
}

const addressKey = (ip: string | null) => ip ?? "";

function inWords(seconds: number): string {
  const s = Math.max(1, Math.ceil(seconds));
  if (s < 90) return `${s} second${s === 1 ? "" : "s"}`;
  return `${Math.ceil(s / 60)} minutes`;
}

/**
 * Refuse (429 with Retry-After) when the login, the address or the pair is blocked. One
 * indexed query; it changes nothing, so attempts during a block never extend it.
 */
export async function assertNotLocked(login: string, ip: string | null): Promise<void> {
  const key = normaliseLogin(login);
  const addr = addressKey(ip);
  const r = await getDb().execute<{ kind: string; secs: number }>(sql`
    select 'account' kind, extract(epoch from locked_until - now())::float8 secs
      from login_lockouts where login = ${key} and locked_until > now()
    union all
    select case when login = '' then 'address' else 'pair' end, extract(epoch from blocked_until - now())::float8
      from sign_in_blocks where ip = ${addr} and login in (${key}, '') and blocked_until > now()`);
  if (!r.rows.length) return;
  const worst = r.rows.reduce((a, b) => (Number(b.secs) > Number(a.secs) ? b : a));
  const secs = Number(worst.secs);
  const msg =
    worst.kind === "account"
      ? THROTTLE_MSG.account(inWords(secs))
      : worst.kind === "address"
        ? THROTTLE_MSG.address(inWords(secs))
        : THROTTLE_MSG.loginFromAddress(inWords(secs));
  throw tooManyRequests(msg, secs);
}

/**
 * Count a failed attempt and block what crossed a threshold. `alsoInTx` writes the activity
 * record of the failure in the same transaction.
 */
export async function recordFailure(login: string, ip: string | null, alsoInTx?: (tx: Tx) => Promise<void>): Promise<void> {
  const key = normaliseLogin(login);
  const addr = addressKey(ip);
  await transaction(async (tx) => {
    // Serialise concurrent failures for one login and one address so the thresholds are exact.
    // Always login first, then address: no two transactions wait on each other in a cycle.
    await tx.execute(sql`select pg_advisory_xact_lock(${LOCK_LOGIN}, hashtext(${key}))`);
    await tx.execute(sql`select pg_advisory_xact_lock(${LOCK_ADDRESS}, hashtext(${addr}))`);
    await tx.insert(loginFailures).values({ login: key, ip: addr });
    const since = (windowSeconds: number, previousEnd: ReturnType<typeof sql>) =>
      sql`greatest(now() - make_interval(secs => ${windowSeconds}), coalesce((${previousEnd}), '-infinity'::timestamptz))`;
    const r = await tx.execute<{ pair: number; address: number; account: number; addresses: number }>(sql`
      select
        (select count(*)::int from login_failures where login = ${key} and ip = ${addr}
          and at > ${since(LOGIN_FROM_ADDRESS.windowSeconds, sql`select blocked_until from sign_in_blocks where ip = ${addr} and login = ${key}`)}) pair,
        (select count(*)::int from login_failures where ip = ${addr}
          and at > ${since(ADDRESS.windowSeconds, sql`select blocked_until from sign_in_blocks where ip = ${addr} and login = ''`)}) address,
        a.n account, a.addresses
      from (select count(*)::int n, count(distinct ip)::int addresses from login_failures where login = ${key}
              and at > ${since(ACCOUNT.windowSeconds, sql`select locked_until from login_lockouts where login = ${key}`)}) a`);
    const c = r.rows[0];
    const block = (login: string, seconds: number) => sql`
      insert into sign_in_blocks (ip, login, blocked_until) values (${addr}, ${login}, now() + make_interval(secs => ${seconds}))
      on conflict (ip, login) do update set blocked_until = excluded.blocked_until`;
    if (c.pair >= LOGIN_FROM_ADDRESS.maxFailures) await tx.execute(block(key, LOGIN_FROM_ADDRESS.blockSeconds));
    if (c.address >= ADDRESS.maxFailures) await tx.execute(block("", ADDRESS.blockSeconds));
    if (c.account >= ACCOUNT.maxFailures && c.addresses >= ACCOUNT.minAddresses) {
      await tx.execute(sql`
        insert into login_lockouts (login, locked_until) values (${key}, now() + make_interval(secs => ${ACCOUNT.lockSeconds}))
        on conflict (login) do update set locked_until = excluded.locked_until`);
    }
    if (alsoInTx) await alsoInTx(tx);
  });
}

/** A successful sign-in from this address forgets its failures for this login. */
export async function clearFailures(login: string, ip: string | null): Promise<void> {
  await getDb()
    .delete(loginFailures)
    .where(and(eq(loginFailures.login, normaliseLogin(login)), eq(loginFailures.ip, addressKey(ip))));
}
