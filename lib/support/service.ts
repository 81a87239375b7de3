import "server-only";
import os from "node:os";
import { sql } from "drizzle-orm";
import { getDb } from "../db";
import { decryptSecret } from "../crypto";
import { SECRET_NAMES } from "../config";
import { recentLogLines } from "../logging";
import { transaction } from "../events";
import { recordActivity, type Actor } from "../activity/service";
import { badRequest } from "../errors";
import { VERSION } from "../settings/info";
import { enterpriseSettingsView, getSettings, settingsView } from "../settings/service";
import { statusOfKey } from "../enterprise/service";
import { sendMail } from "../mail/service";
import { MIN_GATEWAY_VERSION } from "../platform/unbuilt";

/**
 * The Support page's bundle: configuration, versions, gateway states and the last log lines,
 * for an administrator to hand to whoever helps them. Two layers keep secrets out:
 *
 * 1. The configuration is built from allow-listed fields only (no *_enc column, token, key or
 *    password is ever selected into it; URLs lose any user:password part).
 * 2. Every secret the instance holds (settings, OpenID provider and apps, webhooks, log
 *    streams, location keys, signing keys, the licence key and the process secrets) is read
 *    and decrypted, and each occurrence of one in the finished bundle (logs included) is
 *    replaced by "[redacted]".
 */

export const REDACTED = "[redacted]";

type Row = Record<string, unknown>;

async function rows<T extends Row>(q: ReturnType<typeof sql>): Promise<T[]> {
  return (await getDb().execute<T>(q)).rows as T[];
}

/** A URL without its user:password part (webhook and stream URLs may carry credentials). */
function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    if (!u.username && !u.password) return url;
    u.username = u.password ? REDACTED : REDACTED;
    u.password = "";
    return u.toString();
  } catch {
    return url;
  }
}

function tryDecrypt(v: unknown): string | null {
  if (typeof v !== "string" || !v) return null;
  try {
    return decryptSecret(v);
  } catch {
    return v;
  }
}

/** Every secret value this instance holds, in plain text (for the second layer). */
export async function knownSecrets(): Promise<string[]> {
  const out: string[] = [];
  const add = (v: string | null | undefined) => {
    if (!v) return;
    const t = v.trim();
    // Very short values (a 1-character password) would blank out ordinary text; they never reach the bundle through layer 1.
    if (t.length >= 4) out.push(t);
    // A JSON secret (service-account key, JWK) also goes in piece by piece.
    if (t.startsWith("{")) {
      try {
        for (const x of Object.values(JSON.parse(t) as Record<string, unknown>)) if (typeof x === "string" && x.length >= 16) out.push(x);
      } catch {
        // not JSON after all
      }
    }
  };
  const s = await getSettings();
  add(tryDecrypt(s.smtpPasswordEnc));
  add(tryDecrypt(s.ldapBindPasswordEnc));
  add(s.license);
  for (const r of await rows<{ a: string | null; b: string | null; c: string | null; d: string | null }>(
    sql`select client_secret_enc a, google_service_account_key_enc b, okta_private_jwk_enc c, jumpcloud_api_key_enc d from openid_provider`,
  )) {
    add(tryDecrypt(r.a));
    add(tryDecrypt(r.b));
    add(tryDecrypt(r.c));
    add(tryDecrypt(r.d));
  }
  for (const r of await rows<{ v: string }>(sql`select client_secret v from oauth2_clients`)) add(tryDecrypt(r.v));
  for (const r of await rows<{ v: string }>(sql`select token v from webhooks`)) add(tryDecrypt(r.v));
  for (const r of await rows<{ v: string | null; u: string }>(sql`select password v, url u from activity_log_streams`)) add(tryDecrypt(r.v));
  for (const r of await rows<{ v: string }>(sql`select prvkey_enc v from locations`)) add(tryDecrypt(r.v));
  for (const r of await rows<{ v: string }>(sql`select private_jwk v from oidc_keys`)) add(tryDecrypt(r.v));
  for (const name of Object.values(SECRET_NAMES)) add(process.env[name]);
  // Longest first, so a secret containing another is replaced whole.
  return [...new Set(out)].sort((a, b) => b.length - a.length);
}

/** Replace every occurrence of a known secret (also JSON-escaped) in a text. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) {
    for (const form of new Set([s, JSON.stringify(s).slice(1, -1)])) {
      if (form && out.includes(form)) out = out.split(form).join(REDACTED);
    }
  }
  return out;
}

/** GET /support/configuration: the instance's configuration with every secret left out. */
export async function supportConfiguration() {
  const s = await getSettings();
  const view = settingsView(s);
  const licence = statusOfKey(s.license);
  const [counts] = await rows<Row>(sql`select
      (select count(*)::int from users) users,
      (select count(*)::int from users where is_active) active_users,
      (select count(*)::int from groups) groups,
      (select count(*)::int from devices where device_type = 'user') user_devices,
      (select count(*)::int from devices where device_type = 'network') network_devices,
      (select count(*)::int from locations) locations,
      (select count(*)::int from api_tokens) api_tokens`);
  const locations = await rows<Row>(sql`select id, name, address, port, endpoint, allowed_ips, dns, pubkey,
      keepalive_interval, peer_disconnect_threshold, acl_enabled, acl_default_allow, location_mfa_mode
      from locations order by id`);
  const provider = await rows<Row>(sql`select name, base_url, client_id, display_name, scopes, admin_email,
      google_service_account_email, directory_sync_enabled, directory_sync_interval, directory_sync_user_behavior,
      directory_sync_admin_behavior, directory_sync_target, okta_dirsync_client_id, directory_sync_group_match,
      prefetch_users, use_openid_for_client_mfa, last_sync_at, last_sync_ok,
      client_secret_enc is not null client_secret_set, google_service_account_key_enc is not null service_account_key_set,
      okta_private_jwk_enc is not null okta_private_jwk_set, jumpcloud_api_key_enc is not null jumpcloud_api_key_set
      from openid_provider`);
  const apps = await rows<Row>(sql`select id, client_id, name, redirect_uri, scope, enabled from oauth2_clients order by id`);
  const webhooks = (
    await rows<Row & { url: string }>(sql`select id, url, description, enabled, on_user_created, on_user_deleted, on_user_modified, on_hwkey_provision from webhooks order by id`)
  ).map((w) => ({ ...w, url: withoutCredentials(w.url), token: REDACTED }));
  const streams = (
    await rows<Row & { url: string; password_set: boolean }>(
      sql`select id, name, stream_type, url, username, password is not null password_set, cert is not null cert_set from activity_log_streams order by id`,
    )
  ).map((x) => ({ ...x, url: withoutCredentials(x.url), password: x.password_set ? REDACTED : null }));
  const {
    license: _licence,
    smtp_password: _smtp,
    ldap_bind_password: _ldap,
    ...settingsRest
  } = view;
  return {
    settings: {
      ...settingsRest,
      smtp_password: view.smtp_password_set ? REDACTED : "",
      ldap_bind_password: view.ldap_bind_password_set ? REDACTED : "",
      license: s.license ? REDACTED : null,
    },
    enterprise_settings: enterpriseSettingsView(s),
    licence:
      licence.state === "none" || licence.state === "invalid"
        ? { state: licence.state }
        : { state: licence.state, subscription: licence.licence.subscription, valid_until: licence.licence.valid_until, tier: licence.licence.tier },
    counts,
    locations,
    openid_provider: provider[0] ?? null,
    openid_apps: apps,
    webhooks,
    activity_log_streams: streams,
    environment: {
      update_feed: Boolean(process.env.DEFGUARD_UPDATE_URL),
      log_format: process.env.DEFGUARD_LOG_FORMAT ?? "text",
      external_database: Boolean(process.env.DATABASE_URL),
      grpc_tls: Boolean(process.env.DEFGUARD_GRPC_CERT),
    },
  };
}

async function versions() {
  const [pg] = await rows<{ v: string }>(sql`select current_setting('server_version') v`);
  return {
    console: VERSION,
    node: process.version,
    postgresql: pg?.v ?? null,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    min_gateway_version: MIN_GATEWAY_VERSION.join("."),
  };
}

async function gatewayStates() {
  return rows<Row>(sql`select g.id, g.location_id, l.name location_name, g.hostname, g.name, g.version, g.connected,
      g.connected_at, g.disconnected_at, g.last_seen_at
      from gateways g join locations l on l.id = g.location_id order by g.location_id, g.hostname`);
}

/** GET /support/logs: the last lines this process logged, secrets replaced. */
export async function supportLogs(): Promise<string> {
  const secrets = await knownSecrets();
  return scrub(recentLogLines().join("\n"), secrets);
}

export type SupportBundle = Awaited<ReturnType<typeof buildBundle>>;

async function buildBundle() {
  return {
    generated_at: new Date().toISOString(),
    versions: await versions(),
    configuration: await supportConfiguration(),
    gateways: await gatewayStates(),
    logs: recentLogLines(),
  };
}

/** The whole bundle as JSON text, after the second redaction layer. */
export async function supportBundleJson(): Promise<string> {
  const [bundle, secrets] = await Promise.all([buildBundle(), knownSecrets()]);
  return scrub(JSON.stringify(bundle, null, 2), secrets);
}

export function bundleFileName(now = new Date()): string {
  return `defguard-support-${now.toISOString().replace(/[:.]/g, "-")}.json`;
}

export const SUPPORT_EMAIL_NOT_SET = "set a support e-mail address on the Support page first";

/**
 * POST /mail/support: e-mail the bundle to the configured support address. The log entry and
 * the message go together: a refused address (the SMTP server bounces it) rolls the entry back
 * and answers {msg}.
 */
export async function sendSupportMail(actor: Actor): Promise<{ to: string }> {
  const s = await getSettings();
  const to = s.supportEmail?.trim();
  if (!to) throw badRequest(SUPPORT_EMAIL_NOT_SET, "support_email");
  const json = await supportBundleJson();
  const name = bundleFileName();
  await transaction(async (tx) => {
    await recordActivity(tx, actor, { event: "support_mail_sent", description: `Support data sent to ${to}` });
    await sendMail({
      to,
      subject: `${s.instanceName}: support data`,
      text: `Support data of ${s.instanceName} (console ${VERSION}), sent by ${actor.username}. The configuration, versions, gateway states and recent log lines are attached as ${name}; secrets are redacted.`,
      attachments: [{ filename: name, content: json, contentType: "application/json" }],
    });
  });
  return { to };
}

/** GET /support/configuration as JSON text, after the second redaction layer. */
export async function supportConfigurationJson(): Promise<string> {
  const [config, secrets] = await Promise.all([supportConfiguration(), knownSecrets()]);
  return scrub(JSON.stringify(config), secrets);
}
