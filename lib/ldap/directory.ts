import "server-only";
import { createHash, randomBytes } from "node:crypto";
import { Attribute, Change, type Client, type Entry } from "ldapts";
import { attr, attrAll, classify, dnKey, escapeDnValue, FIRST_NAME, hostOf, LAST_NAME, MAIL, PHONE, type LdapConfig } from "./client";

/** A user as both sides compare it. Missing LDAP attributes are "" (phone too). */
export interface Person {
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  phone: string;
}

export const PERSON_FIELDS = ["username", "email", "first_name", "last_name", "phone"] as const;

export interface LdapUser extends Person {
  dn: string;
  key: string;
}

export interface LdapGroup {
  dn: string;
  name: string;
  /** Raw member values: DNs, or usernames for memberUid. */
  members: string[];
}

const PAGE = 1000;

/** Member values are usernames (posixGroup's memberUid) rather than DNs. */
export function membersAreNames(cfg: LdapConfig): boolean {
  return cfg.groupMemberAttr.toLowerCase() === "memberuid";
}

export function userAttributes(cfg: LdapConfig): string[] {
  return [...new Set([cfg.usernameAttr, cfg.rdnAttr, MAIL, FIRST_NAME, LAST_NAME, PHONE])];
}

export function toLdapUser(cfg: LdapConfig, e: Entry): LdapUser {
  return {
    dn: e.dn,
    key: dnKey(e.dn),
    username: attr(e, cfg.usernameAttr),
    email: attr(e, MAIL),
    first_name: attr(e, FIRST_NAME),
    last_name: attr(e, LAST_NAME),
    phone: attr(e, PHONE),
  };
}

/** Every user under the user search base with the user object class (paged). */
export async function readUsers(client: Client, cfg: LdapConfig, extraFilter = ""): Promise<LdapUser[]> {
  const filter = `(&(objectClass=${cfg.userObjClass})${extraFilter})`;
  const out: LdapUser[] = [];
  try {
    for await (const page of client.searchPaginated(cfg.userSearchBase, { scope: "sub", filter, attributes: userAttributes(cfg), paged: { pageSize: PAGE } })) {
      for (const e of page.searchEntries) {
        const u = toLdapUser(cfg, e);
        if (u.username) out.push(u);
      }
    }
  } catch (err) {
    throw classify(err, "search", hostOf(cfg));
  }
  return out;
}

/** Every group under the group search base with the group object class (paged). */
export async function readGroups(client: Client, cfg: LdapConfig, extraFilter = ""): Promise<LdapGroup[]> {
  const filter = `(&(objectClass=${cfg.groupObjClass})${extraFilter})`;
  const out: LdapGroup[] = [];
  try {
    for await (const page of client.searchPaginated(cfg.groupSearchBase, {
      scope: "sub",
      filter,
      attributes: [cfg.groupnameAttr, cfg.groupMemberAttr],
      paged: { pageSize: PAGE },
    })) {
      for (const e of page.searchEntries) {
        const name = attr(e, cfg.groupnameAttr);
        if (name) out.push({ dn: e.dn, name, members: attrAll(e, cfg.groupMemberAttr) });
      }
    }
  } catch (err) {
    throw classify(err, "search", hostOf(cfg));
  }
  return out;
}

/** userPassword value: salted SHA-1 ({SSHA}), which OpenLDAP and most directories check on bind. */
export function sshaHash(password: string): string {
  const salt = randomBytes(8);
  const digest = createHash("sha1").update(password, "utf8").update(salt).digest();
  return `{SSHA}${Buffer.concat([digest, salt]).toString("base64")}`;
}

/** Active Directory's unicodePwd value: the password in double quotes, UTF-16LE. */
export function adPassword(password: string): Buffer {
  return Buffer.from(`"${password}"`, "utf16le");
}

/** The modification that sets a password: unicodePwd on AD, userPassword ({SSHA}) elsewhere. */
export function passwordChange(cfg: LdapConfig, password: string): Change {
  return cfg.ad
    ? new Change({ operation: "replace", modification: new Attribute({ type: "unicodePwd", values: [adPassword(password)] }) })
    : new Change({ operation: "replace", modification: new Attribute({ type: "userPassword", values: [sshaHash(password)] }) });
}

/** DN of a user entry the console creates: <rdn attr>=<username>,<user search base>. */
export function newUserDn(cfg: LdapConfig, username: string): string {
  return `${cfg.rdnAttr}=${escapeDnValue(username)},${cfg.userSearchBase}`;
}

export function newGroupDn(cfg: LdapConfig, name: string): string {
  return `${cfg.groupnameAttr}=${escapeDnValue(name)},${cfg.groupSearchBase}`;
}

/** Attributes of a new user entry. AD accounts get sAMAccountName and stay without a password until one is set. */
export function newUserEntry(cfg: LdapConfig, p: Person, password: string | null): Record<string, string[] | string | Buffer[]> {
  const entry: Record<string, string[] | string | Buffer[]> = {
    objectClass: [cfg.userObjClass, ...cfg.userAuxObjClasses],
    cn: p.username,
    sn: p.last_name || p.username,
  };
  entry[cfg.usernameAttr] = p.username;
  entry[cfg.rdnAttr] = p.username;
  if (cfg.ad) entry.sAMAccountName = p.username;
  if (p.first_name) entry[FIRST_NAME] = p.first_name;
  if (p.email) entry[MAIL] = p.email;
  if (p.phone) entry[PHONE] = p.phone;
  if (password !== null) {
    if (cfg.ad) entry.unicodePwd = [adPassword(password)];
    else entry.userPassword = sshaHash(password);
  }
  return entry;
}

/** Modifications that make an LDAP entry carry these values (empty values delete the attribute). */
export function personChanges(cfg: LdapConfig, next: Partial<Person>): Change[] {
  const map: Record<keyof Person, string> = { username: cfg.usernameAttr, email: MAIL, first_name: FIRST_NAME, last_name: LAST_NAME, phone: PHONE };
  const out: Change[] = [];
  for (const [field, value] of Object.entries(next) as [keyof Person, string][]) {
    const type = map[field];
    // sn is required by inetOrgPerson: an empty last name keeps the username there.
    if (!value && type === LAST_NAME) {
      out.push(new Change({ operation: "replace", modification: new Attribute({ type, values: [next.username ?? "-"] }) }));
    } else if (!value) {
      out.push(new Change({ operation: "replace", modification: new Attribute({ type, values: [] }) }));
    } else {
      out.push(new Change({ operation: "replace", modification: new Attribute({ type, values: [value] }) }));
    }
  }
  return out;
}
