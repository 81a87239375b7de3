import "server-only";
import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect, type ConnectionOptions } from "node:tls";
import { Client, InvalidCredentialsError, NoSuchObjectError, ResultCodeError, type Entry } from "ldapts";
import { decryptSecret } from "../crypto";
import type { Settings } from "../settings/service";

/**
 * The LDAP settings as the integration uses them (docs/ldap.md). Attribute names for e-mail,
 * names and phone are the standard ones (mail, givenName, sn, telephoneNumber), in Active
 * Directory too.
 */
export interface LdapConfig {
  url: string;
  bindDn: string;
  bindPassword: string;
  userSearchBase: string;
  groupSearchBase: string;
  userObjClass: string;
  userAuxObjClasses: string[];
  groupObjClass: string;
  usernameAttr: string;
  /** The attribute naming a user's entry (its RDN): the username attribute unless set. */
  rdnAttr: string;
  /** The user attribute listing the user's groups (memberOf); read at sign-in when present. */
  memberAttr: string;
  groupnameAttr: string;
  groupMemberAttr: string;
  startTls: boolean;
  verifyCert: boolean;
  ad: boolean;
  syncGroups: string[];
  authoritative: boolean;
  syncInterval: number;
}

export const MAIL = "mail";
export const FIRST_NAME = "givenName";
export const LAST_NAME = "sn";
export const PHONE = "telephoneNumber";

/** Why LDAP is not usable, in words, or null: URL, bind DN and search bases are needed. */
export function missingSetting(s: Settings): string | null {
  if (!s.ldapUrl) return "LDAP URL is not set";
  if (!s.ldapBindUsername) return "bind DN is not set";
  if (!s.ldapUserSearchBase) return "user search base is not set";
  if (!s.ldapGroupSearchBase) return "group search base is not set";
  return null;
}

export function ldapConfig(s: Settings): LdapConfig {
  const missing = missingSetting(s);
  if (missing) throw new LdapFailure("not_configured", missing);
  const usernameAttr = s.ldapUsernameAttr || (s.ldapUsesAd ? "sAMAccountName" : "cn");
  return {
    url: s.ldapUrl!,
    bindDn: s.ldapBindUsername!,
    bindPassword: s.ldapBindPasswordEnc ? decryptSecret(s.ldapBindPasswordEnc) : "",
    userSearchBase: s.ldapUserSearchBase!,
    groupSearchBase: s.ldapGroupSearchBase!,
    userObjClass: s.ldapUserObjClass || (s.ldapUsesAd ? "user" : "inetOrgPerson"),
    userAuxObjClasses: s.ldapUserAuxiliaryObjClasses,
    groupObjClass: s.ldapGroupObjClass || (s.ldapUsesAd ? "group" : "groupOfUniqueNames"),
    usernameAttr,
    rdnAttr: s.ldapUserRdnAttr?.trim() || usernameAttr,
    memberAttr: s.ldapMemberAttr || "memberOf",
    groupnameAttr: s.ldapGroupnameAttr || "cn",
    groupMemberAttr: s.ldapGroupMemberAttr || (s.ldapUsesAd ? "member" : "uniqueMember"),
    startTls: s.ldapUseStarttls,
    verifyCert: s.ldapTlsVerifyCert,
    ad: s.ldapUsesAd,
    syncGroups: s.ldapSyncGroups,
    authoritative: s.ldapIsAuthoritative,
    syncInterval: s.ldapSyncInterval,
  };
}

/**
 * What went wrong, as a kind the screen words (messages ldap.errors.*) and a precise message:
 * not_configured, invalid_url, unreachable, certificate (the server's certificate was not
 * accepted), tls (other TLS failure), bind_refused, search_failed, no_users, write_failed.
 */
export type LdapErrorKind =
  | "not_configured"
  | "invalid_url"
  | "unreachable"
  | "certificate"
  | "tls"
  | "bind_refused"
  | "search_failed"
  | "no_users"
  | "write_failed";

export class LdapFailure extends Error {
  constructor(
    readonly kind: LdapErrorKind,
    message: string,
  ) {
    super(message);
  }
}

const TIMEOUT_MS = 10_000;

interface Target {
  host: string;
  port: number;
  secure: boolean;
}

export function parseLdapUrl(url: string): Target {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new LdapFailure("invalid_url", `"${url}" is not a valid LDAP URL (expected ldap://host:port or ldaps://host:port)`);
  }
  const scheme = u.protocol.replace(/:$/, "").toLowerCase();
  if (scheme !== "ldap" && scheme !== "ldaps") throw new LdapFailure("invalid_url", `"${url}" is not an LDAP URL: the scheme must be ldap:// or ldaps://`);
  if (!u.hostname) throw new LdapFailure("invalid_url", `"${url}" has no host name`);
  const secure = scheme === "ldaps";
  return { host: u.hostname.replace(/^\[|\]$/g, ""), port: u.port ? Number(u.port) : secure ? 636 : 389, secure };
}

const CERT_CODES = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "HOSTNAME_MISMATCH",
]);

const NET_WORDS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ETIMEDOUT: "timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ENOTFOUND: "host name not found",
  EAI_AGAIN: "host name lookup failed",
  ECONNRESET: "connection reset",
};

/** Turn whatever a connection, bind or search threw into an LdapFailure with a precise message. */
export function classify(err: unknown, step: "connect" | "bind" | "search" | "write", where: string): LdapFailure {
  if (err instanceof LdapFailure) return err;
  const e = err as { code?: string; message?: string };
  const code = typeof e?.code === "string" ? e.code : "";
  const msg = e?.message ?? String(err);
  if (CERT_CODES.has(code) || /certificate/i.test(msg)) {
    return new LdapFailure("certificate", `the certificate of ${where} is not valid: ${msg}`);
  }
  if (NET_WORDS[code]) return new LdapFailure("unreachable", `cannot reach the LDAP server ${where}: ${NET_WORDS[code]}`);
  if (/timeout|timed out/i.test(msg) && step !== "write") return new LdapFailure("unreachable", `cannot reach the LDAP server ${where}: timed out`);
  if (/ssl|tls/i.test(code + msg)) return new LdapFailure("tls", `TLS with ${where} failed: ${msg}`);
  if (step === "bind") {
    if (err instanceof InvalidCredentialsError) return new LdapFailure("bind_refused", `${where} refused the bind: wrong bind DN or password`);
    if (err instanceof ResultCodeError) return new LdapFailure("bind_refused", `${where} refused the bind: ${msg}`);
  }
  if (step === "search") {
    if (err instanceof NoSuchObjectError) return new LdapFailure("search_failed", `search base not found on ${where}: ${msg}`);
    if (err instanceof ResultCodeError) return new LdapFailure("search_failed", `search on ${where} failed: ${msg}`);
  }
  if (step === "write") return new LdapFailure("write_failed", `${where} refused a change: ${msg}`);
  if (step === "connect") return new LdapFailure("unreachable", `cannot reach the LDAP server ${where}: ${msg}`);
  return new LdapFailure(step === "bind" ? "bind_refused" : "search_failed", `${where}: ${msg}`);
}

function tlsOptions(cfg: LdapConfig, host: string): ConnectionOptions {
  return { rejectUnauthorized: cfg.verifyCert, servername: /^[\d.:]+$/.test(host) ? undefined : host };
}

/**
 * Reach the server: a TCP (or TLS for ldaps://) connection opened and closed, so that
 * "unreachable" and "certificate invalid" are told apart from a refused bind.
 */
export async function probe(cfg: LdapConfig): Promise<void> {
  const t = parseLdapUrl(cfg.url);
  const where = `${t.host}:${t.port}`;
  await new Promise<void>((resolve, reject) => {
    let sock: Socket;
    const done = (err?: unknown) => {
      sock.destroy();
      if (err) reject(classify(err, "connect", where));
      else resolve();
    };
    sock = t.secure ? tlsConnect({ host: t.host, port: t.port, ...tlsOptions(cfg, t.host) }, () => done()) : netConnect({ host: t.host, port: t.port }, () => done());
    sock.setTimeout(TIMEOUT_MS, () => done(Object.assign(new Error("timed out"), { code: "ETIMEDOUT" })));
    sock.once("error", done);
  });
}

/** An LDAP connection: StartTLS when set, not bound yet. Close with `unbind()`. */
export async function openClient(cfg: LdapConfig): Promise<Client> {
  const t = parseLdapUrl(cfg.url);
  const where = `${t.host}:${t.port}`;
  // ldapts speaks TLS from the start whenever tlsOptions are given: only for ldaps://.
  const client = new Client({ url: cfg.url, timeout: 60_000, connectTimeout: TIMEOUT_MS, ...(t.secure ? { tlsOptions: tlsOptions(cfg, t.host) } : {}), strictDN: false });
  if (cfg.startTls && !t.secure) {
    try {
      await client.startTLS(tlsOptions(cfg, t.host));
    } catch (err) {
      await client.unbind().catch(() => {});
      throw classify(err, "connect", `${where} (StartTLS)`);
    }
  }
  return client;
}

/** A connection bound with the service account (bind DN and password). */
export async function openBound(cfg: LdapConfig): Promise<Client> {
  const client = await openClient(cfg);
  try {
    await client.bind(cfg.bindDn, cfg.bindPassword);
  } catch (err) {
    await client.unbind().catch(() => {});
    throw classify(err, "bind", hostOf(cfg));
  }
  return client;
}

export function hostOf(cfg: LdapConfig): string {
  try {
    const t = parseLdapUrl(cfg.url);
    return `${t.host}:${t.port}`;
  } catch {
    return cfg.url;
  }
}

/** First value of an attribute as text ("" when absent). Attribute names are matched case-insensitively. */
export function attr(e: Entry, name: string): string {
  const v = attrAll(e, name)[0];
  return v ?? "";
}

export function attrAll(e: Entry, name: string): string[] {
  const lower = name.toLowerCase();
  for (const [k, v] of Object.entries(e)) {
    if (k.toLowerCase() !== lower) continue;
    const list = Array.isArray(v) ? v : [v];
    return list.map((x) => (Buffer.isBuffer(x) ? x.toString("utf8") : String(x)));
  }
  return [];
}

/** A DN in one comparable form: lower case, no spaces around separators. */
export function dnKey(dn: string): string {
  return dn
    .split(/(?<!\\),/)
    .map((rdn) => rdn.split(/(?<!\\)=/).map((p) => p.trim()).join("="))
    .join(",")
    .toLowerCase();
}

/** Escape a value for use in a DN (RFC 4514). */
export function escapeDnValue(v: string): string {
  return v.replace(/([,+"\\<>;=])/g, "\\$1").replace(/^([ #])/, "\\$1").replace(/ $/, "\\ ");
}
