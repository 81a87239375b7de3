/**
 * "Sudo mode": changing sign-in security needs a session that proved the password or a
 * second factor within the last 10 minutes (sessions.reauth_at); otherwise 403
 * {msg, code: "reauth_required"} and nothing changes. POST /auth/reauth proves it again.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { POST as reauthPost } from "@/app/api/v1/auth/reauth/route";
import { GET as meGet } from "@/app/api/v1/me/route";
import { POST as totpInitPost } from "@/app/api/v1/auth/totp/init/route";
import { DELETE as totpDelete, POST as totpPost } from "@/app/api/v1/auth/totp/route";
import { DELETE as emailDelete } from "@/app/api/v1/auth/email/route";
import { DELETE as mfaDelete } from "@/app/api/v1/auth/mfa/route";
import { DELETE as adminMfaDelete } from "@/app/api/v1/user/[username]/mfa/route";
import { DELETE as keyDelete } from "@/app/api/v1/user/[username]/security_key/[keyId]/route";
import { PUT as userPut } from "@/app/api/v1/user/[username]/route";
import { POST as keyRename } from "@/app/api/v1/user/[username]/security_key/[keyId]/rename/route";
import { POST as authPost } from "@/app/api/v1/auth/route";
import { POST as totpVerifyPost } from "@/app/api/v1/auth/totp/verify/route";
import { REAUTH_REQUIRED, SESSION_COOKIE } from "@/lib/auth/session";
import { sha256hex } from "@/lib/crypto";
import { currentStep, totpCodeAt } from "@/lib/mfa/totp";
import { call, createUser, DEFAULT_PASSWORD, jarFrom, query, signIn, type Jar } from "./helpers";

const post = (h: Parameters<typeof call>[0], jar: Jar, body?: unknown, params?: Record<string, string>) =>
  call(h, { method: "POST", jar, body, params });
const del = (h: Parameters<typeof call>[0], jar: Jar, params?: Record<string, string>) => call(h, { method: "DELETE", jar, params });

/** Make the session's last proof 11 minutes old. */
async function stale(jar: Jar) {
  const r = await query("update sessions set reauth_at = now() - interval '11 minutes' where id = $1 returning 1", [sha256hex(jar[SESSION_COOKIE])]);
  expect(r).toHaveLength(1);
}

function expectReauthRequired(res: { status: number; json: any }) {
  expect(res.status).toBe(403);
  expect(res.json).toEqual({ msg: REAUTH_REQUIRED.msg, code: "reauth_required" });
}

async function enableTotp(jar: Jar): Promise<string> {
  const init = await post(totpInitPost, jar);
  expect(init.status, init.text).toBe(200);
  const code = await totpCodeAt(init.json.secret, currentStep());
  const res = await post(totpPost, jar, { code });
  expect(res.status, res.text).toBe(200);
  return init.json.secret;
}

/** A TOTP code for a step after the last accepted one (each step is accepted once). */
async function nextCode(username: string, secret: string): Promise<string> {
  const [r] = await query<{ s: number }>(
    "select m.totp_last_step s from mfa_secrets m join users u on u.id = m.user_id where u.username = $1",
    [username],
  );
  return totpCodeAt(secret, Math.max(currentStep(), Number(r.s) + 1));
}

async function addKey(username: string): Promise<number> {
  const [k] = await query<{ id: number }>(
    "insert into webauthn_credentials (user_id, name, credential_id, public_key) select id, 'Key', $2, 'AAAA' from users where username = $1 returning id",
    [username, `cred-${username}-${Math.random()}`],
  );
  await query("update users set mfa_enabled = true, mfa_method = 'Webauthn' where username = $1 and not mfa_enabled", [username]);
  return k.id;
}

const mfaOf = async (username: string) =>
  (await query<{ mfa_enabled: boolean; totp_enabled: boolean; email_mfa_enabled: boolean }>(
    "select mfa_enabled, totp_enabled, email_mfa_enabled from users where username = $1",
    [username],
  ))[0];

describe("right after sign-in", () => {
  it("changing sign-in security just works (the password was proved moments ago)", async () => {
    await createUser({ username: "quick" });
    const jar = await signIn("quick");
    await enableTotp(jar);
    expect((await del(totpDelete, jar)).status).toBe(200);
    expect((await mfaOf("quick")).totp_enabled).toBe(false);
  });

  it("after the second factor too", async () => {
    await createUser({ username: "quick-mfa" });
    const first = await signIn("quick-mfa");
    const secret = await enableTotp(first);
    const step1 = await call(authPost, { method: "POST", path: "/api/v1/auth", body: { username: "quick-mfa", password: DEFAULT_PASSWORD } });
    expect(step1.status).toBe(201);
    const step2 = await post(totpVerifyPost, jarFrom(step1), { code: await nextCode("quick-mfa", secret) });
    expect(step2.status, step2.text).toBe(200);
    const jar = jarFrom(step2, jarFrom(step1));
    expect((await del(mfaDelete, jar)).status).toBe(200);
  });
});

describe("with a proof older than 10 minutes", () => {
  let jar: Jar;
  let secret: string;
  let username: string;
  beforeEach(async () => {
    username = `stale${Math.random().toString(36).slice(2, 8)}`;
    await createUser({ username });
    jar = await signIn(username);
    secret = await enableTotp(jar);
    await query("update users set email_mfa_enabled = true where username = $1", [username]);
    await stale(jar);
  });
  const who = () => username;

  it("DELETE /auth/mfa answers 403 reauth_required and MFA stays on", async () => {
    expectReauthRequired(await del(mfaDelete, jar));
    expect(await mfaOf(who())).toMatchObject({ mfa_enabled: true, totp_enabled: true });
  });

  it("DELETE /auth/totp and DELETE /auth/email answer 403 and change nothing", async () => {
    expectReauthRequired(await del(totpDelete, jar));
    expectReauthRequired(await del(emailDelete, jar));
    expect(await mfaOf(who())).toMatchObject({ mfa_enabled: true, totp_enabled: true, email_mfa_enabled: true });
  });

  it("a new TOTP secret (init or confirm) for a user who has TOTP is refused; the pending secret is untouched", async () => {
    const [before] = await query<{ p: string | null; s: string }>(
      "select totp_pending_enc p, totp_secret_enc s from mfa_secrets m join users u on u.id = m.user_id where u.username = $1",
      [who()],
    );
    expectReauthRequired(await post(totpInitPost, jar));
    expectReauthRequired(await post(totpPost, jar, { code: await nextCode(who(), secret) }));
    const [after] = await query<{ p: string | null; s: string }>(
      "select totp_pending_enc p, totp_secret_enc s from mfa_secrets m join users u on u.id = m.user_id where u.username = $1",
      [who()],
    );
    expect(after).toEqual(before);
  });

  it("deleting one's security key is refused; renaming it is not sign-in security", async () => {
    const keyId = await addKey(who());
    expectReauthRequired(await del(keyDelete, jar, { username: who(), keyId: String(keyId) }));
    expect(await query("select 1 from webauthn_credentials where id = $1", [keyId])).toHaveLength(1);
    expect((await post(keyRename, jar, { name: "Renamed" }, { username: who(), keyId: String(keyId) })).status).toBe(200);
  });

  it("POST /auth/reauth with the password makes it fresh again, and the retry succeeds", async () => {
    const res = await post(reauthPost, jar, { password: DEFAULT_PASSWORD });
    expect(res.status, res.text).toBe(200);
    expect((await del(mfaDelete, jar)).status).toBe(200);
    expect((await mfaOf(who())).mfa_enabled).toBe(false);
    const events = await query<{ event: string; description: string }>(
      "select event, description from activity_log where username = $1 and event = 'user_reauthenticated'",
      [who()],
    );
    expect(events).toEqual([{ event: "user_reauthenticated", description: "Confirmed with password" }]);
  });

  it("POST /auth/reauth with an authenticator code works too", async () => {
    const res = await post(reauthPost, jar, { code: await nextCode(who(), secret) });
    expect(res.status, res.text).toBe(200);
    expect((await del(totpDelete, jar)).status).toBe(200);
  });

  it("a wrong password or code is refused with 400 naming the field and leaves the session stale", async () => {
    const pw = await post(reauthPost, jar, { password: "Wrong-passw0rd!" });
    expect(pw.status).toBe(400);
    expect(pw.json).toEqual({ msg: "password: password is incorrect", field: "password" });
    const code = await post(reauthPost, jar, { code: "000000" });
    expect(code.status).toBe(400);
    expect(code.json.field).toBe("code");
    expectReauthRequired(await del(mfaDelete, jar));
    const [f] = await query<{ n: number }>("select count(*)::int n from login_failures where login = $1", [who()]);
    expect(f.n).toBe(2);
  });

  it("wrong passwords count toward sign-in throttling: the 6th try gets 429, even with the right password", async () => {
    for (let i = 0; i < 5; i++) expect((await post(reauthPost, jar, { password: `Wrong-${i}-passw0rd` })).status).toBe(400);
    const res = await post(reauthPost, jar, { password: DEFAULT_PASSWORD });
    expect(res.status).toBe(429);
    expect(res.json.msg).toMatch(/^Too many failed sign-in attempts/);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expectReauthRequired(await del(mfaDelete, jar));
  });
});

describe("POST /auth/reauth input", () => {
  it("refuses a body with neither password nor code (400 naming password) and a malformed code", async () => {
    await createUser({ username: "reauth-input" });
    const jar = await signIn("reauth-input");
    const none = await post(reauthPost, jar, {});
    expect(none.status).toBe(400);
    expect(none.json.field).toBe("password");
    const bad = await post(reauthPost, jar, { code: "12ab" });
    expect(bad.status).toBe(400);
    expect(bad.json.field).toBe("code");
  });

  it("refuses a code from a user without an authenticator app", async () => {
    await createUser({ username: "no-totp" });
    const jar = await signIn("no-totp");
    const res = await post(reauthPost, jar, { code: "123456" });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ msg: "code: your account has no authenticator app; confirm with your password", field: "code" });
  });
});

describe("an admin weakening another user's sign-in", () => {
  it("DELETE /user/{u}/mfa and changing another user's e-mail need the admin's fresh proof", async () => {
    await createUser({ username: "root", isAdmin: true });
    await createUser({ username: "victim2", mfaEnabled: true });
    const admin = await signIn("root");
    await stale(admin);
    expectReauthRequired(await del(adminMfaDelete, admin, { username: "victim2" }));
    expect((await mfaOf("victim2")).mfa_enabled).toBe(true);

    const body = (email: string) => ({ username: "victim2", first_name: "Test", last_name: "victim2", email, phone: null });
    expectReauthRequired(await call(userPut, { method: "PUT", jar: admin, params: { username: "victim2" }, body: body("evil@example.com") }));
    const [u] = await query<{ email: string }>("select email from users where username = 'victim2'");
    expect(u.email).toBe("victim2@example.com");
    // Other fields change without a fresh proof.
    const ok = await call(userPut, { method: "PUT", jar: admin, params: { username: "victim2" }, body: { ...body("victim2@example.com"), first_name: "New" } });
    expect(ok.status, ok.text).toBe(200);

    expect((await post(reauthPost, admin, { password: DEFAULT_PASSWORD })).status).toBe(200);
    expect((await call(userPut, { method: "PUT", jar: admin, params: { username: "victim2" }, body: body("new@example.com") })).status).toBe(200);
    expect((await del(adminMfaDelete, admin, { username: "victim2" })).status).toBe(200);
  });

  it("a stale session can still read and do ordinary things", async () => {
    await createUser({ username: "reader" });
    const jar = await signIn("reader");
    await stale(jar);
    expect((await call(meGet, { jar })).status).toBe(200);
  });
});
