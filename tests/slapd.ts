/**
 * A throw-away OpenLDAP server for tests and benchmarks: Debian's slapd started on loopback
 * ports with a slapd.conf and an MDB database in a temporary directory, the standard schema
 * (core, cosine, inetorgperson, nis) and, for the Active Directory flavour, a small schema
 * written here with AD's names (sAMAccountName, unicodePwd, memberOf, the `user` and `group` classes).
 *
 * The server is stopped by its PID (never by name). When slapd is not installed,
 * `slapdMissing()` says why, and callers skip with that reason printed.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const SLAPD = "/usr/sbin/slapd";
export const SLAPADD = "/usr/sbin/slapadd";
const SCHEMA_DIR = "/etc/ldap/schema";
const MODULE_DIR = "/usr/lib/ldap";

export const BASE_DN = "dc=example,dc=org";
export const ADMIN_DN = `cn=admin,${BASE_DN}`;
export const ADMIN_PASSWORD = "admin-secret";
export const USERS_DN = `ou=users,${BASE_DN}`;
export const GROUPS_DN = `ou=groups,${BASE_DN}`;

/** Why slapd cannot run here, or null when it can. */
export function slapdMissing(): string | null {
  for (const f of [SLAPD, SLAPADD, join(SCHEMA_DIR, "core.schema"), join(MODULE_DIR, "back_mdb.so")]) {
    if (!existsSync(f)) return `${f} is missing (install the Debian packages slapd and ldap-utils)`;
  }
  return null;
}

export interface SlapdOptions {
  /** Active Directory flavour: AD's attribute and class names from a small schema file. */
  ad?: boolean;
  /** Serve ldaps:// too, and StartTLS on ldap://, with this certificate and key (PEM files). */
  tls?: { cert: string; key: string };
  /** LDIF loaded with slapadd before the server starts (after the base entries). */
  ldif?: string;
}

export interface Slapd {
  url: string;
  /** ldaps:// URL when `tls` was given. */
  ldapsUrl: string | null;
  pid: number;
  dir: string;
  ad: boolean;
  stop(): Promise<void>;
}

/** The AD-like schema: names as Active Directory has them, OIDs from the example arc. */
const AD_SCHEMA = `
attributetype ( 1.3.6.1.4.1.55555.1.1 NAME 'sAMAccountName'
  EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch
  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.55555.1.2 NAME 'unicodePwd'
  EQUALITY octetStringMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.40 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.55555.1.3 NAME 'userAccountControl'
  EQUALITY integerMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 SINGLE-VALUE )
attributetype ( 1.3.6.1.4.1.55555.1.4 NAME 'memberOf'
  EQUALITY distinguishedNameMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.12 )
objectclass ( 1.3.6.1.4.1.55555.2.1 NAME 'user' SUP inetOrgPerson STRUCTURAL
  MAY ( sAMAccountName $ unicodePwd $ userAccountControl $ memberOf ) )
objectclass ( 1.3.6.1.4.1.55555.2.2 NAME 'group' SUP top STRUCTURAL
  MUST cn MAY ( member $ sAMAccountName $ description ) )
`;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** The base entries: the suffix and the users and groups units. */
function baseLdif(): string {
  return `dn: ${BASE_DN}
objectClass: dcObject
objectClass: organization
dc: example
o: Example

dn: ${USERS_DN}
objectClass: organizationalUnit
ou: users

dn: ${GROUPS_DN}
objectClass: organizationalUnit
ou: groups
`;
}

function config(dir: string, o: SlapdOptions): string {
  const schemas = ["core", "cosine", "inetorgperson", "nis"].map((s) => `include ${join(SCHEMA_DIR, `${s}.schema`)}`);
  if (o.ad) schemas.push(`include ${join(dir, "ad.schema")}`);
  return `${schemas.join("\n")}
modulepath ${MODULE_DIR}
moduleload back_mdb
pidfile ${join(dir, "slapd.pid")}
argsfile ${join(dir, "slapd.args")}
${o.tls ? `TLSCertificateFile ${o.tls.cert}\nTLSCertificateKeyFile ${o.tls.key}\n` : ""}
database mdb
suffix "${BASE_DN}"
rootdn "${ADMIN_DN}"
rootpw ${ADMIN_PASSWORD}
directory ${join(dir, "db")}
maxsize 1073741824
index objectClass eq
index cn,uid,mail eq
${o.ad ? "index sAMAccountName eq\nindex member eq" : "index uniqueMember eq"}
access to attrs=userPassword by self write by anonymous auth by * none
access to * by self read by users read by * none
`;
}

function runChecked(cmd: string, args: string[], input?: string) {
  const r = spawnSync(cmd, args, { input, encoding: "utf8", timeout: 120_000 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}): ${r.stderr || r.stdout}`);
}

async function waitForPort(port: number, child: ChildProcess, log: () => string) {
  const { connect } = await import("node:net");
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`slapd exited with ${child.exitCode}: ${log()}`);
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, "127.0.0.1");
      s.once("connect", () => (s.destroy(), resolve(true)));
      s.once("error", () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`slapd did not listen on ${port}: ${log()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Start slapd; `stop()` kills it by PID and removes its directory. */
export async function startSlapd(o: SlapdOptions = {}): Promise<Slapd> {
  const missing = slapdMissing();
  if (missing) throw new Error(missing);
  const dir = mkdtempSync(join(tmpdir(), "dg-slapd-"));
  mkdirSync(join(dir, "db"));
  if (o.ad) writeFileSync(join(dir, "ad.schema"), AD_SCHEMA);
  const conf = join(dir, "slapd.conf");
  writeFileSync(conf, config(dir, o));
  writeFileSync(join(dir, "seed.ldif"), baseLdif() + (o.ldif ? `\n${o.ldif}` : ""));
  // -q: quick mode (no consistency checks), fine for a fresh database.
  runChecked(SLAPADD, ["-q", "-f", conf, "-l", join(dir, "seed.ldif")]);
  const port = await freePort();
  const tlsPort = o.tls ? await freePort() : null;
  const urls = [`ldap://127.0.0.1:${port}/`, ...(tlsPort ? [`ldaps://127.0.0.1:${tlsPort}/`] : [])];
  // -d 0: stay in the foreground (our child) without debug output.
  const child = spawn(SLAPD, ["-f", conf, "-h", urls.join(" "), "-d", "0"], { stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (out += d));
  const pid = child.pid!;
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        /* already gone */
      }
      const t = setTimeout(() => {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          /* gone */
        }
      }, 5000);
      await exited;
      clearTimeout(t);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(port, child, () => out);
    if (tlsPort) await waitForPort(tlsPort, child, () => out);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url: `ldap://127.0.0.1:${port}`,
    ldapsUrl: tlsPort ? `ldaps://localhost:${tlsPort}` : null,
    pid,
    dir,
    ad: Boolean(o.ad),
    stop,
  };
}

/** LDIF of one standard (inetOrgPerson) user with a clear-text password slapd hashes on bind checks. */
export function userLdif(u: { uid: string; first: string; last: string; mail: string; password?: string; phone?: string; memberOf?: string[] }, ad = false): string {
  const lines = ad
    ? [`dn: cn=${u.uid},${USERS_DN}`, "objectClass: user", `cn: ${u.uid}`, `sAMAccountName: ${u.uid}`]
    : [`dn: cn=${u.uid},${USERS_DN}`, "objectClass: inetOrgPerson", `cn: ${u.uid}`, `uid: ${u.uid}`];
  lines.push(`sn: ${u.last}`, `givenName: ${u.first}`, `mail: ${u.mail}`);
  if (u.phone) lines.push(`telephoneNumber: ${u.phone}`);
  if (u.password) lines.push(`userPassword: ${u.password}`);
  for (const g of u.memberOf ?? []) lines.push(`memberOf: ${g}`);
  return lines.join("\n") + "\n";
}

/** LDIF of one group with these member DNs (groupOfUniqueNames, or AD's `group`). */
export function groupLdif(name: string, memberDns: string[], ad = false): string {
  const lines = ad
    ? [`dn: cn=${name},${GROUPS_DN}`, "objectClass: group", `cn: ${name}`, ...memberDns.map((m) => `member: ${m}`)]
    : [`dn: cn=${name},${GROUPS_DN}`, "objectClass: groupOfUniqueNames", `cn: ${name}`, ...memberDns.map((m) => `uniqueMember: ${m}`)];
  return lines.join("\n") + "\n";
}

/**
 * The LDAP settings (PATCH /api/v1/settings body) that point the console at a test slapd with
 * the standard schema (inetOrgPerson / groupOfUniqueNames, username in `cn`) or the AD-like one
 * (`user` / `group`, username in `sAMAccountName`, entries named by `cn`); `extra` overrides.
 */
export function ldapTestSettings(url: string, schema: "standard" | "ad", extra: Record<string, unknown> = {}): Record<string, unknown> {
  const common = {
    ldap_enabled: true,
    ldap_sync_enabled: true,
    ldap_url: url,
    ldap_bind_username: ADMIN_DN,
    ldap_bind_password: ADMIN_PASSWORD,
    ldap_user_search_base: USERS_DN,
    ldap_group_search_base: GROUPS_DN,
    ldap_user_auxiliary_obj_classes: [],
    ldap_groupname_attr: "cn",
    ldap_member_attr: "memberOf",
    ldap_sync_groups: [],
  };
  const bySchema =
    schema === "ad"
      ? { ldap_user_obj_class: "user", ldap_group_obj_class: "group", ldap_username_attr: "sAMAccountName", ldap_user_rdn_attr: "cn", ldap_group_member_attr: "member", ldap_uses_ad: true }
      : { ldap_user_obj_class: "inetOrgPerson", ldap_group_obj_class: "groupOfUniqueNames", ldap_username_attr: "cn", ldap_user_rdn_attr: "", ldap_group_member_attr: "uniqueMember", ldap_uses_ad: false };
  return { ...common, ...bySchema, ...extra };
}
