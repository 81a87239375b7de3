import "server-only";
import { eq, sql } from "drizzle-orm";
import { Attribute, Change, escapeFilter, type Client, type Entry } from "ldapts";
import type { Tx } from "../db";
import { ldapUsers } from "../db/schema";
import { AppError } from "../errors";
import { recordActivity, type Actor } from "../activity/service";
import { getSettings } from "../settings/service";
import { attrAll, classify, dnKey, escapeDnValue, hostOf, ldapConfig, LdapFailure, missingSetting, openBound, probe, type LdapConfig } from "./client";
import { membersAreNames, readGroups } from "./directory";

/** The attribute and (unescaped) value of a DN's first RDN. */
function firstRdn(dn: string): { attr: string; value: string } | null {
  const rdn = dn.split(/(?<!\\),/)[0] ?? "";
  const i = rdn.search(/(?<!\\)=/);
  if (i < 0) return null;
  return { attr: rdn.slice(0, i).trim(), value: rdn.slice(i + 1).trim().replace(/\\(.)/g, "$1") };
}

/** The DN after its first RDN. */
function parentOf(dn: string): string {
  const i = dn.search(/(?<!\\),/);
  return i < 0 ? "" : dn.slice(i + 1).trim();
}

/** The attributes that name a user: the username attribute, and sAMAccountName in AD mode. */
function usernameAttrs(cfg: LdapConfig): string[] {
  const attrs = [cfg.usernameAttr];
  if (cfg.ad && cfg.usernameAttr.toLowerCase() !== "samaccountname") attrs.push("sAMAccountName");
  return attrs;
}

/** Throws (write_failed, so 400) when an entry other than the user's holds `username`. */
async function refuseTakenUsername(client: Client, cfg: LdapConfig, ownKey: string, username: string): Promise<void> {
  const attrs = usernameAttrs(cfg);
  const filter = `(|${attrs.map((a) => escapeFilter`(${a}=${username})`).join("")})`;
  let found: Entry[];
  try {
    found = (await client.search(cfg.userSearchBase, { scope: "sub", filter, attributes: attrs, sizeLimit: 10 })).searchEntries;
  } catch (err) {
    throw classify(err, "search", hostOf(cfg));
  }
  const other = found.find((e) => dnKey(e.dn) !== ownKey);
  if (!other) return;
  const attr = attrs.find((a) => attrAll(other, a).some((v) => v.toLowerCase() === username.toLowerCase())) ?? attrs[0];
  throw new LdapFailure("write_failed", `the LDAP entry ${other.dn} already has the username ${username} (${attr})`);
}

/**
 * A username changed in the console, written to the user's LDAP entry inside the transaction of
 * the change (called last, like the password write-back): when LDAP is enabled and the user is
 * linked to an entry.
 *
 * - An entry named by the username (`<rdn attr>=<old username>,…`) is renamed with modifyDN to
 *   `<rdn attr>=<new username>` under the same parent (the old RDN value is removed).
 * - When the username attribute is not the RDN attribute, it is replaced (and `sAMAccountName`
 *   in AD mode).
 * - Groups listing the user (their DN, or the username for `memberUid`) get the new value.
 * - A new username another entry under the user search base already holds (in the username
 *   attribute, or in `sAMAccountName` in AD mode) is refused before anything is written: the
 *   directory would not always refuse it (a modifyDN refuses only a taken DN, and an entry named
 *   by its full name keeps its DN), and two entries with one username would leave the sync
 *   unable to tell which is the user.
 * - The sync's link (`ldap_users`: dn_key, dn, base username) and the group bases
 *   (`ldap_groups.members`, dn_keys) follow, so the next sync sees no change and deletes
 *   nothing.
 *
 * LDAP refusing the change (400) or unavailable (503) rolls the rename back with {msg}.
 * Returns whether LDAP was written.
 */
export async function renameLdapUser(tx: Tx, actor: Actor, userId: number, oldUsername: string, newUsername: string): Promise<boolean> {
  if (oldUsername === newUsername) return false;
  const s = await getSettings(tx);
  if (!s.ldapEnabled || missingSetting(s)) return false;
  const [link] = await tx.select().from(ldapUsers).where(eq(ldapUsers.userId, userId));
  if (!link) return false;
  const cfg = ldapConfig(s);
  const rdn = firstRdn(link.dn);
  const renameEntry = rdn !== null && rdn.attr.toLowerCase() === cfg.rdnAttr.toLowerCase() && rdn.value.toLowerCase() === oldUsername.toLowerCase();
  const newDn = renameEntry ? `${rdn!.attr}=${escapeDnValue(newUsername)}${parentOf(link.dn) ? `,${parentOf(link.dn)}` : ""}` : link.dn;
  const groupsChanged: string[] = [];
  try {
    await probe(cfg);
    const client = await openBound(cfg);
    try {
      await refuseTakenUsername(client, cfg, link.dnKey, newUsername);
      if (renameEntry) await client.modifyDN(link.dn, `${rdn!.attr}=${escapeDnValue(newUsername)}`);
      // The naming attributes modifyDN did not already set (it sets the RDN's).
      const attrs = new Set(usernameAttrs(cfg).filter((a) => !renameEntry || a.toLowerCase() !== cfg.rdnAttr.toLowerCase()));
      if (attrs.size) {
        await client.modify(
          newDn,
          [...attrs].map((type) => new Change({ operation: "replace", modification: new Attribute({ type, values: [newUsername] }) })),
        );
      }
      // Groups naming the user by DN (member, uniqueMember) or by username (memberUid).
      const [oldValue, newValue] = membersAreNames(cfg) ? [oldUsername, newUsername] : [link.dn, newDn];
      if (oldValue !== newValue) {
        for (const g of await readGroups(client, cfg, escapeFilter`(${cfg.groupMemberAttr}=${oldValue})`)) {
          const stale = g.members.filter((m) => (membersAreNames(cfg) ? m.toLowerCase() === oldValue.toLowerCase() : dnKey(m) === dnKey(oldValue)));
          if (!stale.length) continue;
          await client.modify(g.dn, [
            new Change({ operation: "delete", modification: new Attribute({ type: cfg.groupMemberAttr, values: stale }) }),
            new Change({ operation: "add", modification: new Attribute({ type: cfg.groupMemberAttr, values: [newValue] }) }),
          ]);
          groupsChanged.push(g.name);
        }
      }
    } catch (err) {
      throw classify(err, "write", hostOf(cfg));
    } finally {
      await client.unbind().catch(() => {});
    }
  } catch (err) {
    const msg = err instanceof LdapFailure ? err.message : String(err);
    const refused = err instanceof LdapFailure && err.kind === "write_failed";
    throw new AppError(refused ? 400 : 503, `the new username could not be written to LDAP: ${msg}`);
  }
  const oldKey = link.dnKey;
  const newKey = dnKey(newDn);
  await tx
    .update(ldapUsers)
    .set({ dnKey: newKey, dn: newDn, base: { ...link.base, username: newUsername } })
    .where(eq(ldapUsers.dnKey, oldKey));
  if (newKey !== oldKey) await tx.execute(sql`update ldap_groups set members = array_replace(members, ${oldKey}, ${newKey}) where ${oldKey} = any(members)`);
  await recordActivity(tx, actor, {
    event: "ldap_user_modified",
    description: renameEntry
      ? `Renamed LDAP entry ${link.dn} to ${newDn}${groupsChanged.length ? `; groups updated: ${groupsChanged.join(", ")}` : ""}`
      : `Changed the username in LDAP entry ${link.dn} to ${newUsername}${groupsChanged.length ? `; groups updated: ${groupsChanged.join(", ")}` : ""}`,
  });
  return true;
}
