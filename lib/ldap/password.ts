import "server-only";
import { eq } from "drizzle-orm";
import type { Tx } from "../db";
import { ldapUsers, users } from "../db/schema";
import { AppError } from "../errors";
import { getSettings } from "../settings/service";
import { classify, hostOf, ldapConfig, LdapFailure, missingSetting, openBound, probe } from "./client";
import { passwordChange } from "./directory";

/**
 * Write a user's new password to their LDAP entry, inside the transaction of the password
 * change (called last, like a mail send): when LDAP is enabled and the user is linked to an
 * entry. LDAP refusing the password (400) or unavailable (503) rolls the change back with {msg}. Clears
 * ldap_pass_requires_change. Returns whether LDAP was written.
 */
export async function writeLdapPassword(tx: Tx, userId: number, password: string): Promise<boolean> {
  const s = await getSettings(tx);
  if (!s.ldapEnabled || missingSetting(s)) return false;
  const [link] = await tx.select().from(ldapUsers).where(eq(ldapUsers.userId, userId));
  if (!link) return false;
  const cfg = ldapConfig(s);
  try {
    await probe(cfg);
    const client = await openBound(cfg);
    try {
      await client.modify(link.dn, passwordChange(cfg, password));
    } catch (err) {
      throw classify(err, "write", hostOf(cfg));
    } finally {
      await client.unbind().catch(() => {});
    }
  } catch (err) {
    const msg = err instanceof LdapFailure ? err.message : String(err);
    // LDAP refusing the value (its password policy) is the request's fault; anything else is LDAP being unavailable.
    const refused = err instanceof LdapFailure && err.kind === "write_failed";
    throw new AppError(refused ? 400 : 503, `the password could not be written to LDAP: ${msg}`);
  }
  await tx.update(users).set({ ldapPassRequiresChange: false }).where(eq(users.id, userId));
  return true;
}
