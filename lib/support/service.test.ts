/**
 * The Support page's bundle (issue 19): a value of every kind of secret the instance holds is
 * planted, and none of them may appear in the bundle, the configuration or the logs (even when
 * a secret was written to the log). The bundle goes to the support address through SMTP; an
 * address the server refuses answers {msg} and leaves no activity entry.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SMTPServer } from "smtp-server";
import type { AddressInfo } from "node:net";
import { GET as bundleGet } from "@/app/api/v1/support/bundle/route";
import { GET as configGet } from "@/app/api/v1/support/configuration/route";
import { GET as logsGet } from "@/app/api/v1/support/logs/route";
import { POST as supportMail } from "@/app/api/v1/mail/support/route";
import { PATCH as settingsPatch } from "@/app/api/v1/settings/route";
import { encryptSecret } from "@/lib/crypto";
import { clearLogLines, LOG_RING_SIZE, recentLogLines, rememberLogLine } from "@/lib/logging";
import { SECRET_NAMES } from "@/lib/config";
import { call, createUser, query, setLicence, signIn, testLicence, type Jar } from "@/tests/helpers";
import { startSmtpSink, useSmtpSink, type SmtpSink } from "@/tests/smtp-sink";

let admin: Jar;
let user: Jar;
let sink: SmtpSink;

/** One planted value per kind of secret (distinct, long enough to be unmistakable). */
const PLANTED = {
  smtp_password: "smtp-pass-Q7v9zK2mWq",
  ldap_bind_password: "ldap-bind-R4t8yU1oPa",
  openid_provider_client_secret: "provider-secret-H3j5kL7nBx",
  google_service_account_key: '{"private_key":"-----BEGIN PRIVATE KEY-----gsa-KEY-Zr6Tq2","client_email":"sa@example.com"}',
  okta_private_jwk: '{"kty":"RSA","d":"okta-jwk-private-D9f1Gh3Jk5Lm7","n":"abc"}',
  jumpcloud_api_key: "jumpcloud-key-Vb2Nm4Qw6Er8",
  openid_app_client_secret: "app-secret-Ty7Ui9Op1As3",
  webhook_token: "webhook-token-Df5Gh7Jk9Lz1",
  webhook_url_password: "hookpw-Xc3Vb5Nm7Qa",
  stream_password: "stream-pass-Wq2Er4Ty6Ui8",
  location_private_key: "location-prv-Kk8Ll0Mm2Nn4Oo6Pp8Qq0Rr2Ss4=",
  oidc_signing_key: '{"kty":"EC","d":"oidc-signing-d-Aa1Bb3Cc5Dd7Ee9"}',
};
let licenceKey = "";

beforeAll(async () => {
  await createUser({ username: "sup-admin", isAdmin: true });
  await createUser({ username: "sup-user" });
  admin = await signIn("sup-admin");
  user = await signIn("sup-user");
  sink = await startSmtpSink();
  await useSmtpSink(sink);

  const enc = encryptSecret;
  await query("update settings set smtp_user = 'mailer', smtp_password_enc = $1, ldap_bind_password_enc = $2 where id = 1", [enc(PLANTED.smtp_password), enc(PLANTED.ldap_bind_password)]);
  licenceKey = testLicence({});
  await setLicence(licenceKey);
  await query(
    `insert into openid_provider (name, base_url, client_id, client_secret_enc, google_service_account_key_enc, okta_private_jwk_enc, jumpcloud_api_key_enc)
     values ('Custom', 'https://idp.example.com', 'console', $1, $2, $3, $4)`,
    [enc(PLANTED.openid_provider_client_secret), enc(PLANTED.google_service_account_key), enc(PLANTED.okta_private_jwk), enc(PLANTED.jumpcloud_api_key)],
  );
  await query("insert into oauth2_clients (client_id, client_secret, name, redirect_uri, scope) values ('app1', $1, 'App', '{https://app.example.com/cb}', '{openid}')", [enc(PLANTED.openid_app_client_secret)]);
  await query("insert into webhooks (url, description, token) values ($1, 'hook', $2)", [`https://hook:${PLANTED.webhook_url_password}@hooks.example.com/x`, enc(PLANTED.webhook_token)]);
  await query("insert into activity_log_streams (name, stream_type, url, username, password) values ('s', 'vector_http', 'https://logs.example.com', 'u', $1)", [enc(PLANTED.stream_password)]);
  await query("insert into locations (name, address, port, endpoint, pubkey, prvkey_enc) values ('Office', '{10.9.0.1/24}', 51820, 'vpn.example.com', 'pub', $1)", [enc(PLANTED.location_private_key)]);
  const [loc] = await query<{ id: number }>("select id from locations where name = 'Office'");
  await query("insert into gateways (location_id, hostname, version, connected) values ($1, 'gw-1', '1.4.0', true)", [loc.id]);
  await query("insert into oidc_keys (kid, alg, private_jwk) values ('k1', 'ES256', $1)", [enc(PLANTED.oidc_signing_key)]);

  // Secrets that leaked into the log must not leave through the bundle either.
  clearLogLines();
  rememberLogLine("info", ["[test] ordinary line"]);
  rememberLogLine("warn", [`[test] oops, logged ${PLANTED.webhook_token} and ${PLANTED.smtp_password}`]);
});

afterAll(async () => {
  await sink.close();
});

function secretsIn(text: string): string[] {
  const all: [string, string][] = [...Object.entries(PLANTED), ["licence", licenceKey], ...Object.values(SECRET_NAMES).map((n) => [n, process.env[n] ?? ""] as [string, string])];
  const pieces = (v: string): string[] => {
    // A JSON secret: its private parts must be gone too.
    if (v.startsWith("{")) return Object.values(JSON.parse(v) as Record<string, string>).filter((x) => x.length >= 16);
    return [v];
  };
  return all.filter(([, v]) => v && pieces(v).some((p) => text.includes(p) || text.includes(JSON.stringify(p).slice(1, -1)))).map(([k]) => k);
}

describe("support bundle", () => {
  it("the planted secrets are really stored (the test can fail)", async () => {
    const [s] = await query<{ license: string }>("select license from settings where id = 1");
    expect(s.license).toBe(licenceKey);
    expect(recentLogLines().join("\n")).toContain(PLANTED.webhook_token);
  });

  it("GET /support/bundle: configuration, versions, gateway states and logs, no secret of any kind", async () => {
    const res = await call(bundleGet, { path: "/api/v1/support/bundle", jar: admin });
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="defguard-support-.*\.json"$/);
    const b = res.json;
    expect(b.versions.console).toMatch(/^\d+\.\d+/);
    expect(b.versions.postgresql).toMatch(/^\d+/);
    expect(b.configuration.settings.smtp_user).toBe("mailer");
    expect(b.configuration.settings.smtp_password).toBe("[redacted]");
    expect(b.configuration.settings.license).toBe("[redacted]");
    expect(b.configuration.webhooks[0]).toMatchObject({ token: "[redacted]", url: expect.stringContaining("hooks.example.com") });
    expect(b.configuration.openid_provider).toMatchObject({ client_id: "console", client_secret_set: true });
    expect(b.configuration.locations[0]).toMatchObject({ name: "Office", pubkey: "pub" });
    expect(b.gateways).toEqual([expect.objectContaining({ hostname: "gw-1", version: "1.4.0", connected: true, location_name: "Office" })]);
    expect(b.logs).toHaveLength(2);
    expect(b.logs[1]).toContain("[redacted]");
    expect(secretsIn(res.text)).toEqual([]);
  });

  it("GET /support/configuration and GET /support/logs hold no secret either; admins only", async () => {
    const config = await call(configGet, { path: "/api/v1/support/configuration", jar: admin });
    expect(config.status).toBe(200);
    expect(secretsIn(config.text)).toEqual([]);
    const logs = await call(logsGet, { path: "/api/v1/support/logs", jar: admin });
    expect(logs.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(logs.text).toContain("ordinary line");
    expect(secretsIn(logs.text)).toEqual([]);
    expect((await call(bundleGet, { path: "/api/v1/support/bundle", jar: user })).status).toBe(403);
  });

  it("keeps only the last 1,000 log lines", () => {
    clearLogLines();
    for (let i = 0; i < LOG_RING_SIZE + 5; i++) rememberLogLine("info", [`line ${i}`]);
    const lines = recentLogLines();
    expect(lines).toHaveLength(LOG_RING_SIZE);
    expect(lines[0]).toMatch(/ line 5$/);
    expect(lines.at(-1)).toMatch(new RegExp(` line ${LOG_RING_SIZE + 4}$`));
  });
});

describe("POST /mail/support", () => {
  it("without a support address: 400 {msg, field}", async () => {
    const res = await call(supportMail, { method: "POST", path: "/api/v1/mail/support", jar: admin });
    expect(res.status).toBe(400);
    expect(res.json.field).toBe("support_email");
  });

  it("a bad support address is refused by PATCH /settings with 400 naming the field", async () => {
    const res = await call(settingsPatch, { method: "PATCH", path: "/api/v1/settings", jar: admin, body: { support_email: "not an address" } });
    expect(res.status).toBe(400);
    expect(res.json.field).toBe("support_email");
  });

  it("sends the bundle as an attachment to the support address, with no secret in the message", async () => {
    const set = await call(settingsPatch, { method: "PATCH", path: "/api/v1/settings", jar: admin, body: { support_email: "help@support.example.com" } });
    expect(set.status, set.text).toBe(200);
    // The sink takes no login; the planted SMTP password stays stored (and must stay out).
    await query("update settings set smtp_user = null where id = 1");
    const before = sink.messages.length;
    const res = await call(supportMail, { method: "POST", path: "/api/v1/mail/support", jar: admin });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ to: "help@support.example.com" });
    const mail = await sink.next(before);
    expect(mail.to).toEqual(["help@support.example.com"]);
    expect(mail.raw).toMatch(/filename="?defguard-support-/);
    // The attachment is base64 in the message: decode every base64 part and look inside.
    const decoded = [...mail.raw.matchAll(/\r?\n\r?\n([A-Za-z0-9+/=\r\n]{200,})/g)].map((m) => Buffer.from(m[1].replace(/\s+/g, ""), "base64").toString("utf8")).join("\n");
    expect(decoded).toContain('"configuration"');
    expect(secretsIn(mail.raw + decoded)).toEqual([]);
    expect(await query("select 1 from activity_log where event = 'support_mail_sent'")).toHaveLength(1);
  });

  it("an address the SMTP server refuses (bounce): 503 {msg}, no activity entry", async () => {
    const bouncer = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS"],
      logger: false,
      onRcptTo(address, _session, cb) {
        cb(Object.assign(new Error("5.1.1 mailbox unavailable"), { responseCode: 550 }));
      },
    });
    await new Promise<void>((r) => bouncer.listen(0, "127.0.0.1", r));
    try {
      await query("update settings set smtp_port = $1, smtp_user = null where id = 1", [(bouncer.server.address() as AddressInfo).port]);
      const entries = (await query("select 1 from activity_log where event = 'support_mail_sent'")).length;
      const res = await call(supportMail, { method: "POST", path: "/api/v1/mail/support", jar: admin });
      expect(res.status).toBe(503);
      expect(res.json.msg).toBe("sending e-mail failed: the SMTP server refused the message");
      expect(await query("select 1 from activity_log where event = 'support_mail_sent'")).toHaveLength(entries);
    } finally {
      await new Promise<void>((r) => bouncer.close(() => r()));
      await useSmtpSink(sink);
    }
  });
});
