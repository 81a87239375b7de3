import "server-only";
import { eq, or, sql } from "drizzle-orm";
import { escapeFilter, InvalidCredentialsError } from "ldapts";
import { getDb } from "../db";
import { groupUsers, groups, ldapUsers, users } from "../db/schema";
import { unauthorized } from "../errors";
import { transaction } from "../events";
import { recordActivity } from "../activity/service";
import { hashPassword } from "../auth/password";
import { login, MSG, type LoginResult, type RequestMeta } from "../auth/service";
import { assertNotLocked, normaliseLogin, recordFailure } from "../auth/throttle";
import type { LoginInput } from "../auth/schema";
import { metrics } from "../metrics";
import { getSettings } from "../settings/service";
import { reconcileAllLocations } from "../locations/service";
import { describeError } from "../log-errors";
import { attrAll, dnKey, ldapConfig, missingSetting, openBound, openClient, probe, MAIL, type LdapConfig } from "./client";
import { membersAreNames, readGroups, toLdapUser, userAttributes, type LdapUser } from "./directory";
import { writeLdapPassword } from "./password";
import { linkUser, SYNC_ACTOR } from "./sync";

type Verdict = { kind: "ok"; entry: LdapUser; memberOf: string[] } | { kind: "refused" } | { kind: "unknown" } | { kind: "unavailable"; why: string };

const USERNAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** Find the entry by username attribute or e-mail with the service account, then bind as it. */
async function ldapAuthenticate(cfg: LdapConfig, login: string, password: string): Promise<Verdict> {
  // An empty password would be an anonymous bind, which servers accept: never a sign-in.
  if (!password) return { kind: "refused" };
  let entry: LdapUser | undefined;
  let memberOf: string[] = [];
  try {
    await probe(cfg);
    const svc = await openBound(cfg);
    try {
      const filter = escapeFilter`(&(objectClass=${cfg.userObjClass})(|(${cfg.usernameAttr}=${login})(${MAIL}=${login})))`;
      const r = await svc.search(cfg.userSearchBase, { scope: "sub", filter, attributes: [...userAttributes(cfg), cfg.memberAttr], sizeLimit: 2 });
      if (r.searchEntries.length !== 1) return { kind: "unknown" };
      entry = toLdapUser(cfg, r.searchEntries[0]);
      memberOf = attrAll(r.searchEntries[0], cfg.memberAttr);
    } finally {
      await svc.unbind().catch(() => {});
    }
  } catch (err) {
    return { kind: "unavailable", why: describeError(err) };
  }
  const c = await openClient(cfg).catch(() => null);
  if (!c) return { kind: "unavailable", why: "connection failed" };
  try {
    await c.bind(entry.dn, password);
    return { kind: "ok", entry, memberOf };
  } catch (err) {
    if (err instanceof InvalidCredentialsError) return { kind: "refused" };
    return { kind: "unavailable", why: describeError(err) };
  } finally {
    await c.unbind().catch(() => {});
  }
}

/** Create the console account of an LDAP user at their first sign-in, with their LDAP groups. */
async function importAtSignIn(cfg: LdapConfig, entry: LdapUser, memberOf: string[], password: string, ip: string | null): Promise<void> {
  if (!USERNAME_RE.test(entry.username) || !entry.email) return;
  // Their groups, read before the transaction: from the user's groups attribute (memberOf)
  // when the directory keeps one, else by searching the groups that list them.
  const base = dnKey(cfg.groupSearchBase);
  let groupNames = memberOf
    .filter((g) => dnKey(g).endsWith(`,${base}`))
    .map((g) => /^[^=]+=((?:\\.|[^,\\])*)/.exec(g)?.[1]?.replace(/\\(.)/g, "$1") ?? "")
    .filter(Boolean);
  if (!groupNames.length) try {
    const svc = await openBound(cfg);
    try {
      const value = membersAreNames(cfg) ? entry.username : entry.dn;
      groupNames = (await readGroups(svc, cfg, escapeFilter`(${cfg.groupMemberAttr}=${value})`)).map((g) => g.name);
    } finally {
      await svc.unbind().catch(() => {});
    }
  } catch {
    groupNames = [];
  }
  await transaction(async (tx, emit) => {
    const taken = await tx.execute(sql`select 1 from users where lower(username) = lower(${entry.username}) or lower(email) = lower(${entry.email}) limit 1`);
    if (taken.rows.length) return;
    const [u] = await tx
      .insert(users)
      .values({
        username: entry.username,
        email: entry.email,
        firstName: entry.first_name,
        lastName: entry.last_name,
        phone: entry.phone || null,
        passwordHash: await hashPassword(password),
        enrolled: true,
      })
      .returning();
    await linkUser(tx, u.id, entry);
    const actor = { ...SYNC_ACTOR, ip };
    await recordActivity(tx, actor, { event: "user_added", description: `Imported user ${u.username} from LDAP at sign-in` });
    emit({ type: "user.created", userId: u.id, username: u.username });
    for (const name of groupNames) {
      let [g] = await tx.select().from(groups).where(eq(groups.name, name));
      if (!g) {
        [g] = await tx.insert(groups).values({ name }).returning();
        await recordActivity(tx, actor, { event: "group_added", description: `Created group ${name} from LDAP at sign-in` });
      }
      await tx.insert(groupUsers).values({ groupId: g.id, userId: u.id }).onConflictDoNothing();
      await recordActivity(tx, actor, { event: "group_member_added", description: `Added ${u.username} to group ${name} (LDAP membership)` });
      emit({ type: "group.changed", groupId: g.id, name });
    }
    if (groupNames.length) await reconcileAllLocations(tx);
  });
}

/**
 * POST /auth with the LDAP fallback (docs/ldap.md, "Sign-in"). With LDAP enabled, a user who
 * is not local, or whose account is linked to an LDAP entry, is checked against LDAP with
 * their own bind: accepted, the account is created on first sign-in (with its LDAP groups) and
 * the local password follows LDAP's; refused, a linked account is refused too (LDAP's password
 * counts). When LDAP cannot be reached, the local password decides. A linked user whose LDAP
 * password was set at random by the sync (ldap_pass_requires_change) signs in with the local
 * password, which is then written to LDAP. Lockout applies before LDAP is asked.
 */
export async function signIn(input: LoginInput, meta: RequestMeta): Promise<LoginResult> {
  const s = await getSettings();
  if (!s.ldapEnabled || missingSetting(s)) return login(input, meta);
  const typed = normaliseLogin(input.username);
  const [user] = await getDb()
    .select()
    .from(users)
    .where(or(sql`lower(${users.username}) = ${typed}`, sql`lower(${users.email}) = ${typed}`))
    .limit(1);
  const link = user ? (await getDb().select().from(ldapUsers).where(eq(ldapUsers.userId, user.id)))[0] : undefined;
  if (user && !link) return login(input, meta);
  try {
    await assertNotLocked(user ? normaliseLogin(user.username) : typed, meta.ip);
  } catch {
    return login(input, meta); // answers the lockout (429) and counts it
  }
  const cfg = ldapConfig(s);
  const verdict = await ldapAuthenticate(cfg, input.username.trim(), input.password);
  if (verdict.kind === "ok") {
    if (!user) {
      await importAtSignIn(cfg, verdict.entry, verdict.memberOf, input.password, meta.ip);
    } else {
      await transaction(async (tx) => {
        await tx.update(users).set({ passwordHash: await hashPassword(input.password), ldapPassRequiresChange: false }).where(eq(users.id, user.id));
      });
    }
    return login(input, meta);
  }
  if (verdict.kind === "unavailable") console.error(`[ldap] sign-in of ${typed}: LDAP unavailable, local password decides: ${verdict.why}`);
  if (verdict.kind === "refused" && user && !user.ldapPassRequiresChange) {
    const key = normaliseLogin(user.username);
    await recordFailure(key, meta.ip, (tx) =>
      recordActivity(tx, { userId: user.id, username: user.username, ip: meta.ip }, { event: "user_login_failed", description: "Wrong password (LDAP)" }),
    );
    metrics().signIns.inc({ result: "failure" });
    throw unauthorized(MSG.badCredentials);
  }
  const result = await login(input, meta);
  if (user && user.ldapPassRequiresChange && verdict.kind !== "unavailable") {
    // The LDAP entry has a random password from the sync: give it the one just proved.
    await transaction(async (tx) => {
      if (await writeLdapPassword(tx, user.id, input.password)) {
        await recordActivity(tx, { userId: user.id, username: user.username, ip: meta.ip }, { event: "ldap_password_changed", description: `Password of ${user.username} written to LDAP at sign-in` });
      }
    }).catch((err) => console.error(`[ldap] writing the password of ${user.username} to LDAP failed: ${describeError(err)}`));
  }
  return result;
}
