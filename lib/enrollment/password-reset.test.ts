/**
 * Password reset by e-mail link through the API defguard's proxy serves (and the console's
 * public page uses): POST /password-reset/request {email} → e-mail with the link,
 * /password-reset/start {token} → {deadline_timestamp} and a session cookie,
 * /password-reset/reset {password}. Events password_reset_requested/_started/_completed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as requestPost } from "@/app/api/v1/password-reset/request/route";
import { POST as startPost } from "@/app/api/v1/password-reset/start/route";
import { POST as resetPost } from "@/app/api/v1/password-reset/reset/route";
import { POST as authPost } from "@/app/api/v1/auth/route";
import { call, createUser, jarFrom, query, type Handler, type Jar } from "@/tests/helpers";
import { startSmtpSink, useSmtpSink, type SmtpSink } from "@/tests/smtp-sink";

const NEW_PASSWORD = "Res3t-Passw0rd!";
let sink: SmtpSink;

/** The token of a reset e-mail's link (quoted-printable soft breaks and =3D undone). */
function tokenOf(raw: string): string {
  const text = raw.replace(/=\r?\n/g, "").replace(/=3D/gi, "=");
  const m = /password-reset\?token=([A-Za-z0-9_-]+)/.exec(text);
  if (!m) throw new Error("no reset link in the e-mail");
  return m[1];
}

class Browser {
  jar: Jar = {};
  async post(handler: Handler, path: string, body: unknown) {
    const res = await call(handler, { method: "POST", path: `/api/v1${path}`, body, cookies: this.jar });
    this.jar = jarFrom(res, this.jar);
    return res;
  }
}

const events = async (username: string) =>
  (await query<{ event: string }>("select event from activity_log where username = $1 and event like 'password_reset%' order by id", [username])).map((r) => r.event);

beforeAll(async () => {
  sink = await startSmtpSink();
  await useSmtpSink(sink);
  await createUser({ username: "pam", email: "Pam@Example.com" });
  await createUser({ username: "offline", isActive: false });
  await createUser({ username: "fresh", password: null });
});
afterAll(async () => {
  await sink.close();
});

describe("password reset by e-mail link", () => {
  it("request → e-mail → start → reset: the new password works, the token is spent, three events", async () => {
    const b = new Browser();
    const n = sink.messages.length;
    const req = await b.post(requestPost as Handler, "/password-reset/request", { email: "pam@example.com" });
    expect(req.status, req.text).toBe(200);
    expect(req.text).toBe("");
    const mail = await sink.next(n);
    expect(mail.to.map((a) => a.toLowerCase())).toEqual(["pam@example.com"]);
    const token = tokenOf(mail.raw);

    const start = await b.post(startPost as Handler, "/password-reset/start", { token });
    expect(start.status, start.text).toBe(200);
    expect(start.json).toEqual({ deadline_timestamp: expect.any(Number) });
    expect(start.json.deadline_timestamp * 1000).toBeGreaterThan(Date.now());
    expect(start.cookies.defguard_proxy_password_reset).toMatchObject({ httpOnly: true, path: "/api/v1/password-reset" });
    expect(b.jar.defguard_proxy_password_reset).not.toContain(token);

    const weak = await b.post(resetPost as Handler, "/password-reset/reset", { password: "short" });
    expect(weak.status).toBe(400);
    expect(weak.json).toMatchObject({ field: "password", error: weak.json.msg });

    const reset = await b.post(resetPost as Handler, "/password-reset/reset", { password: NEW_PASSWORD });
    expect(reset.status, reset.text).toBe(200);
    expect(b.jar.defguard_proxy_password_reset).toBeUndefined();
    const login = await call(authPost as Handler, { method: "POST", path: "/api/v1/auth", body: { username: "pam", password: NEW_PASSWORD } });
    expect(login.status, login.text).toBe(200);
    expect(await events("pam")).toEqual(["password_reset_requested", "password_reset_started", "password_reset_completed"]);

    // Spent: neither start nor reset work again.
    const again = await new Browser().post(startPost as Handler, "/password-reset/start", { token });
    expect(again.status).toBe(401);
    expect(again.json.error).toBe(again.json.msg);
    const replay = await new Browser().post(resetPost as Handler, "/password-reset/reset", { password: "An0ther-Passw0rd!", token });
    expect(replay.status).toBe(400);
  });

  it("unknown, disabled or not enrolled addresses: the same empty 200, no e-mail, no token", async () => {
    const n = sink.messages.length;
    const [before] = await query<{ n: number }>("select count(*)::int n from password_reset_tokens");
    for (const email of ["nobody@example.com", "offline@example.com", "fresh@example.com"]) {
      const res = await new Browser().post(requestPost as Handler, "/password-reset/request", { email });
      expect(res.status, email).toBe(200);
      expect(res.text).toBe("");
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(sink.messages.length).toBe(n);
    const [after] = await query<{ n: number }>("select count(*)::int n from password_reset_tokens");
    expect(after.n).toBe(before.n);
    const bad = await new Browser().post(requestPost as Handler, "/password-reset/request", { email: "not-an-address" });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ field: "email" });
  });

  it("expired or unknown token: 401 {msg, error}; reset without a session: 401", async () => {
    const unknown = await new Browser().post(startPost as Handler, "/password-reset/start", { token: "x".repeat(40) });
    expect(unknown.status).toBe(401);
    const n = sink.messages.length;
    await new Browser().post(requestPost as Handler, "/password-reset/request", { email: "pam@example.com" });
    const token = tokenOf((await sink.next(n)).raw);
    await query("update password_reset_tokens set expires_at = now() - interval '1 second'");
    const expired = await new Browser().post(startPost as Handler, "/password-reset/start", { token });
    expect(expired.status).toBe(401);
    expect(expired.json).toEqual({ msg: expired.json.error, error: expect.any(String) });
    const none = await new Browser().post(resetPost as Handler, "/password-reset/reset", { password: NEW_PASSWORD });
    expect(none.status).toBe(401);
  });
});
