/**
 * Multi-factor authentication through the real route handlers on a real database: TOTP
 * (with replay protection), e-mail codes (through a local SMTP sink), recovery codes, the
 * lockout, admin reset, the require-MFA policy and forged WebAuthn input.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as authPost } from "@/app/api/v1/auth/route";
import { GET as meGet } from "@/app/api/v1/me/route";
import { GET as infoGet } from "@/app/api/v1/info/route";
import { POST as totpInitPost } from "@/app/api/v1/auth/totp/init/route";
import { POST as totpPost, DELETE as totpDelete } from "@/app/api/v1/auth/totp/route";
import { POST as totpVerifyPost } from "@/app/api/v1/auth/totp/verify/route";
import { POST as emailInitPost } from "@/app/api/v1/auth/email/init/route";
import { GET as emailSendGet, POST as emailPost } from "@/app/api/v1/auth/email/route";
import { POST as emailVerifyPost } from "@/app/api/v1/auth/email/verify/route";
import { POST as recoveryPost } from "@/app/api/v1/auth/recovery/route";
import { PUT as mfaPut, DELETE as mfaDelete } from "@/app/api/v1/auth/mfa/route";
import { DELETE as adminMfaDelete } from "@/app/api/v1/user/[username]/mfa/route";
import { POST as webauthnFinishPost } from "@/app/api/v1/auth/webauthn/finish/route";
import { POST as webauthnInitPost } from "@/app/api/v1/auth/webauthn/init/route";
import { POST as webauthnStartPost } from "@/app/api/v1/auth/webauthn/start/route";
import { currentStep, totpCodeAt } from "@/lib/mfa/totp";
import { call, createUser, DEFAULT_PASSWORD, jarFrom, query, signIn, type Jar } from "./helpers";
import { startSmtpSink, useSmtpSink, type SmtpSink } from "./smtp-sink";

const post = (h: Parameters<typeof call>[0], jar: Jar, body?: unknown) => call(h, { method: "POST", jar, body });

async function passwordStep(username: string, password = DEFAULT_PASSWORD) {
  const res = await call(authPost, { method: "POST", path: "/api/v1/auth", body: { username, password } });
  return { res, jar: jarFrom(res) };
}

/** Turn TOTP on for a signed-in user; returns the secret and the recovery codes. */
async function enableTotp(jar: Jar) {
  const init = await post(totpInitPost, jar);
  expect(init.status).toBe(200);
  const secret: string = init.json.secret;
  const code = await totpCodeAt(secret, currentStep());
  const res = await post(totpPost, jar, { code });
  expect(res.status, res.text).toBe(200);
  return { secret, codes: res.json.codes as string[] | null, usedStep: currentStep() };
}

async function events(username: string): Promise<string[]> {
  const rows = await query<{ event: string }>("select event from activity_log where username = $1 order by id", [username]);
  return rows.map((r) => r.event);
}

describe("TOTP", () => {
  let jar: Jar;
  let secret: string;
  let codes: string[];
  beforeAll(async () => {
    await createUser({ username: "tina" });
    jar = await signIn("tina");
  });

  it("refuses a wrong first code and keeps MFA off", async () => {
    await post(totpInitPost, jar);
    const res = await post(totpPost, jar, { code: "000000" });
    expect(res.status).toBe(400);
    expect(res.json.msg).toMatch(/code is invalid/);
    const me = await call(meGet, { jar });
    expect(me.json.mfa_enabled).toBe(false);
    expect(me.json.totp_enabled).toBe(false);
  });

  it("rejects malformed codes with 400 naming the field", async () => {
    for (const code of ["12345", "1234567", "abcdef", "", null]) {
      const res = await post(totpPost, jar, { code });
      expect(res.status, String(code)).toBe(400);
      expect(res.json.msg).toMatch(/^code: /);
    }
  });

  it("turns MFA on with the first code and answers 8 recovery codes once", async () => {
    ({ secret, codes } = (await enableTotp(jar)) as { secret: string; codes: string[] });
    expect(codes).toHaveLength(8);
    expect(new Set(codes).size).toBe(8);
    const me = await call(meGet, { jar });
    expect(me.json).toMatchObject({ mfa_enabled: true, totp_enabled: true, mfa_method: "OneTimePassword" });
    // The secret is stored encrypted, never in clear.
    const [row] = await query<{ s: string }>("select totp_secret_enc s from mfa_secrets m join users u on u.id = m.user_id where u.username = 'tina'");
    expect(row.s).toMatch(/^v1:/);
    expect(row.s).not.toContain(secret);
    // Recovery codes are stored hashed.
    const stored = await query<{ code_hash: string }>("select code_hash from recovery_codes r join users u on u.id = r.user_id where u.username = 'tina'");
    expect(stored).toHaveLength(8);
    for (const c of codes) expect(stored.map((s) => s.code_hash)).not.toContain(c);
    // Enabling again (new secret) does not hand out new recovery codes.
    const again = await enableTotp(jar);
    expect(again.codes).toBeNull();
    secret = again.secret;
  });

  it("answers 201 with the methods, and the half-signed-in session can do nothing else", async () => {
    const { res, jar: half } = await passwordStep("tina");
    expect(res.status).toBe(201);
    expect(res.json).toEqual({ mfa_method: "OneTimePassword", totp_available: true, webauthn_available: false, email_available: false });
    expect((await call(meGet, { jar: half })).status).toBe(401);
    expect((await call(infoGet, { jar: half })).status).toBe(401);
  });

  it("signs in with the next code, rotates the session, and refuses a replay", async () => {
    const { jar: half } = await passwordStep("tina");
    const code = await totpCodeAt(secret, currentStep() + 1);
    const ok = await post(totpVerifyPost, half, { code });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.user.username).toBe("tina");
    const full = jarFrom(ok, half);
    expect(full.defguard_session).not.toBe(half.defguard_session);
    expect((await call(meGet, { jar: full })).status).toBe(200);
    expect((await call(meGet, { jar: half })).status).toBe(401);

    const { jar: half2 } = await passwordStep("tina");
    const replay = await post(totpVerifyPost, half2, { code });
    expect(replay.status).toBe(401);
    expect(replay.json.msg).toBe("code is invalid");
    expect(await events("tina")).toEqual(expect.arrayContaining(["mfa_totp_enabled", "user_login", "user_mfa_login", "user_mfa_login_failed"]));
  });

  it("counts wrong codes toward the lockout: after 5, even a right code gets 429", async () => {
    await createUser({ username: "lockme" });
    const j = await signIn("lockme");
    const { secret: s } = await enableTotp(j);
    const { jar: half } = await passwordStep("lockme");
    for (let i = 0; i < 5; i++) expect((await post(totpVerifyPost, half, { code: "111111" })).status).toBe(401);
    const right = await totpCodeAt(s, currentStep() + 1);
    const locked = await post(totpVerifyPost, half, { code: right });
    expect(locked.status).toBe(429);
  });

  it("a recovery code signs in once, then never again", async () => {
    const { jar: half } = await passwordStep("tina");
    const res = await post(recoveryPost, half, { code: codes[0].toLowerCase().replace(/-/g, " ") });
    expect(res.status, res.text).toBe(200);
    const { jar: half2 } = await passwordStep("tina");
    const reuse = await post(recoveryPost, half2, { code: codes[0] });
    expect(reuse.status).toBe(401);
    expect(await events("tina")).toContain("recovery_code_used");
  });

  it("turning TOTP off with no other method switches MFA off", async () => {
    const res = await call(totpDelete, { method: "DELETE", jar });
    expect(res.status).toBe(200);
    const me = await call(meGet, { jar });
    expect(me.json).toMatchObject({ mfa_enabled: false, totp_enabled: false, mfa_method: "None" });
    expect((await passwordStep("tina")).res.status).toBe(200);
  });
});

describe("e-mail codes", () => {
  let sink: SmtpSink;
  let jar: Jar;
  beforeAll(async () => {
    await createUser({ username: "emma", email: "emma@example.com" });
    jar = await signIn("emma");
    sink = await startSmtpSink();
  });
  afterAll(() => sink.close());

  const codeIn = (subject: string) => /(\d{6})/.exec(subject)![1];

  it("says SMTP must be configured when it is not", async () => {
    const res = await post(emailInitPost, jar);
    expect(res.status).toBe(400);
    expect(res.json.msg).toBe("SMTP must be configured before email tokens or notifications can be used");
  });

  it("sends a setup code, enables e-mail MFA with it, then signs in with an e-mailed code", async () => {
    await useSmtpSink(sink);
    const before = sink.messages.length;
    expect((await post(emailInitPost, jar)).status).toBe(200);
    const mail = await sink.next(before);
    expect(mail.to).toEqual(["emma@example.com"]);
    const enable = await post(emailPost, jar, { code: codeIn(mail.subject) });
    expect(enable.status, enable.text).toBe(200);
    expect(enable.json.codes).toHaveLength(8);

    const { res, jar: half } = await passwordStep("emma");
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ mfa_method: "Email", email_available: true });
    const n = sink.messages.length;
    expect((await call(emailSendGet, { jar: half })).status).toBe(200);
    const loginMail = await sink.next(n);
    const wrong = await post(emailVerifyPost, half, { code: codeIn(loginMail.subject) === "123456" ? "654321" : "123456" });
    expect(wrong.status).toBe(401);
    const ok = await post(emailVerifyPost, half, { code: codeIn(loginMail.subject) });
    expect(ok.status, ok.text).toBe(200);
    // Each code works once.
    const { jar: half2 } = await passwordStep("emma");
    expect((await post(emailVerifyPost, half2, { code: codeIn(loginMail.subject) })).status).toBe(401);
  });

  it("refuses an expired code", async () => {
    const { jar: half } = await passwordStep("emma");
    const n = sink.messages.length;
    // A code was just requested above; make the resend window pass.
    await query("update email_codes set expires_at = now() - interval '1 second'");
    expect((await call(emailSendGet, { jar: half })).status).toBe(200);
    const mail = await sink.next(n);
    await query("update email_codes set expires_at = now() - interval '1 second' where used_at is null");
    const res = await post(emailVerifyPost, half, { code: codeIn(mail.subject) });
    expect(res.status).toBe(401);
  });
});

describe("switching MFA off", () => {
  it("DELETE /auth/mfa wipes secrets, recovery codes and keys", async () => {
    const u = await createUser({ username: "oliver" });
    const jar = await signIn("oliver");
    await enableTotp(jar);
    const res = await call(mfaDelete, { method: "DELETE", jar });
    expect(res.status).toBe(200);
    expect(await query("select * from mfa_secrets where user_id = $1", [u.id])).toHaveLength(0);
    expect(await query("select * from recovery_codes where user_id = $1", [u.id])).toHaveLength(0);
    expect((await call(meGet, { jar })).json.mfa_enabled).toBe(false);
    // Turning it on again issues fresh recovery codes.
    expect((await enableTotp(jar)).codes).toHaveLength(8);
  });

  it("an admin switches another user's MFA off; an ordinary user may not", async () => {
    await createUser({ username: "root2", isAdmin: true });
    const u = await createUser({ username: "victim" });
    const vjar = await signIn("victim");
    await enableTotp(vjar);
    const other = await createUser({ username: "mallory" });
    const mjar = await signIn(other.username);
    const denied = await call(adminMfaDelete, { method: "DELETE", jar: mjar, params: { username: "victim" } });
    expect(denied.status).toBe(403);
    const admin = await signIn("root2");
    const ok = await call(adminMfaDelete, { method: "DELETE", jar: admin, params: { username: "victim" } });
    expect(ok.status).toBe(200);
    const [row] = await query<{ mfa_enabled: boolean }>("select mfa_enabled from users where id = $1", [u.id]);
    expect(row.mfa_enabled).toBe(false);
    expect(await events("root2")).toContain("user_mfa_disabled");
  });

  it("PUT /auth/mfa refuses a method that is not configured", async () => {
    await createUser({ username: "nomethod" });
    const jar = await signIn("nomethod");
    const res = await call(mfaPut, { method: "PUT", jar, body: { method: "Webauthn" } });
    expect(res.status).toBe(400);
    expect((await call(meGet, { jar })).json.mfa_enabled).toBe(false);
  });
});

describe("require-MFA policy", () => {
  it("a user without MFA may only set it up until they have", async () => {
    await createUser({ username: "newbie" });
    await query("insert into settings (id) values (1) on conflict do nothing");
    await query("update settings set require_mfa = true where id = 1");
    try {
      const login = await call(authPost, { method: "POST", path: "/api/v1/auth", body: { username: "newbie", password: DEFAULT_PASSWORD } });
      expect(login.status).toBe(200);
      expect(login.json.mfa_setup_required).toBe(true);
      const jar = jarFrom(login);
      const info = await call(infoGet, { jar });
      expect(info.status).toBe(403);
      expect(info.json.code).toBe("mfa_setup_required");
      expect((await call(meGet, { jar })).status).toBe(200);
      await enableTotp(jar);
      expect((await call(infoGet, { jar })).status).toBe(200);
    } finally {
      await query("update settings set require_mfa = false where id = 1");
    }
  });
});

describe("WebAuthn input", () => {
  it("a forged registration is refused with 400 and stores nothing", async () => {
    const u = await createUser({ username: "keyless" });
    const jar = await signIn("keyless");
    expect((await post(webauthnInitPost, jar)).status).toBe(200);
    const forged = {
      name: "My key",
      id: "AAAA",
      rawId: "AAAA",
      type: "public-key",
      response: { clientDataJSON: "e30", attestationObject: "oA" },
      clientExtensionResults: {},
    };
    const res = await post(webauthnFinishPost, jar, forged);
    expect(res.status).toBe(400);
    expect(res.json.msg).toMatch(/failed to read key/);
    expect(await query("select * from webauthn_credentials where user_id = $1", [u.id])).toHaveLength(0);
    const missing = await post(webauthnFinishPost, jar, { name: "x" });
    expect(missing.status).toBe(400);
  });

  it("security key sign-in is refused for a user without keys", async () => {
    await createUser({ username: "tkonly" });
    const jar = await signIn("tkonly");
    await enableTotp(jar);
    const { jar: half } = await passwordStep("tkonly");
    const res = await post(webauthnStartPost, half);
    expect(res.status).toBe(400);
  });
});
