/**
 * User enrolment and desktop-client activation through the real route handlers on a real
 * database and a local SMTP sink: POST /user/{username}/start_enrollment and /start_desktop,
 * then the calls a defguard desktop client makes against the console (as against defguard's
 * proxy), with its own cookie jar — /enrollment/start, /create_device, /activate_user,
 * /network_info and /poll. Token reuse, expiry, the wrong user, and bad input ({msg, error},
 * nothing changed).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as createUserPost } from "@/app/api/v1/user/route";
import { POST as startEnrollmentPost } from "@/app/api/v1/user/[username]/start_enrollment/route";
import { POST as startDesktopPost } from "@/app/api/v1/user/[username]/start_desktop/route";
import { POST as enrollStartPost } from "@/app/api/v1/enrollment/start/route";
import { POST as activateUserPost } from "@/app/api/v1/enrollment/activate_user/route";
import { POST as createDevicePost } from "@/app/api/v1/enrollment/create_device/route";
import { POST as networkInfoPost } from "@/app/api/v1/enrollment/network_info/route";
import { POST as pollPost } from "@/app/api/v1/poll/route";
import { POST as registerMfaStartPost } from "@/app/api/v1/enrollment/register-mfa/code/start/route";
import { POST as registerMfaFinishPost } from "@/app/api/v1/enrollment/register-mfa/code/finish/route";
import { currentStep, totpCodeAt } from "@/lib/mfa/totp";
import { codeOf } from "@/e2e/smtp-sink";
import { POST as authPost } from "@/app/api/v1/auth/route";
import { POST as welcomeTestPost } from "@/app/api/v1/mail/test_welcome/route";
import { publicUrl } from "@/lib/config";
import { sha256hex } from "@/lib/crypto";
import { instanceId } from "./service";
import { call, createUser, jarFrom, query, signIn, type CallResult, type Handler, type Jar } from "@/tests/helpers";
import { mkDevice, mkGroup, mkLocation, newKey } from "@/tests/wireguard-fixtures";
import { startSmtpSink, useSmtpSink, type SmtpSink } from "@/tests/smtp-sink";

const STRONG = "Enr0lled-Passw0rd!";

/** A desktop client: one cookie jar kept across its calls, as a browser or the client's HTTP stack does. */
class Client {
  jar: Jar = {};
  async post(handler: Handler, path: string, body: unknown): Promise<CallResult> {
    // Cookies are scoped to their path, as the real client would send them.
    const cookies = path.startsWith("/enrollment/") ? this.jar : {};
    const res = await call(handler, { method: "POST", path: `/api/v1${path}`, body, cookies });
    this.jar = jarFrom(res, this.jar);
    return res;
  }
  start = (token: string) => this.post(enrollStartPost as Handler, "/enrollment/start", { token });
  activate = (body: unknown) => this.post(activateUserPost as Handler, "/enrollment/activate_user", body);
  createDevice = (body: unknown) => this.post(createDevicePost as Handler, "/enrollment/create_device", body);
  networkInfo = (body: unknown) => this.post(networkInfoPost as Handler, "/enrollment/network_info", body);
  poll = (token: string) => this.post(pollPost as Handler, "/poll", { token });
  mfaStart = (body: unknown) => this.post(registerMfaStartPost as Handler, "/enrollment/register-mfa/code/start", body);
  mfaFinish = (body: unknown) => this.post(registerMfaFinishPost as Handler, "/enrollment/register-mfa/code/finish", body);
}

let sink: SmtpSink;
let admin: Jar;
let rootId: number;
let office: { id: number; name: string; pubkey: string };

const startEnrollment = (username: string, body: unknown = {}, jar = admin) =>
  call(startEnrollmentPost as Handler, { method: "POST", path: `/api/v1/user/${username}/start_enrollment`, jar, body, params: { username } });
const startDesktop = (username: string, body: unknown = {}, jar = admin) =>
  call(startDesktopPost as Handler, { method: "POST", path: `/api/v1/user/${username}/start_desktop`, jar, body, params: { username } });

/** A user created for enrolment (no password) through POST /user. */
async function newEnrollee(username: string, groups = ["staff"]) {
  const res = await call(createUserPost as Handler, {
    method: "POST",
    path: "/api/v1/user",
    jar: admin,
    body: { username, first_name: "Erin", last_name: "Enrol", email: `${username}@example.com`, phone: null },
  });
  expect(res.status, res.text).toBe(201);
  for (const g of groups) await query("insert into group_users (group_id, user_id) select g.id, $2 from groups g where g.name = $1", [g, res.json.id]);
  return res.json.id as number;
}

async function tokenRows(userId: number) {
  return query<{ token_hash: string; used_at: Date | null; session_ends_at: Date | null; kind: string; email: string | null }>(
    "select token_hash, used_at, session_ends_at, kind, email from enrollment_tokens where user_id = $1 order by created_at",
    [userId],
  );
}

async function activity(event: string, username?: string) {
  return query<{ username: string; module: string; device: string | null }>(
    `select username, module, device from activity_log where event = $1 ${username ? "and username = $2" : ""} order by id`,
    username ? [event, username] : [event],
  );
}

async function snapshot() {
  const [r] = await query<Record<string, number>>(
    `select (select count(*)::int from devices) devices, (select count(*)::int from device_locations) links,
            (select count(*)::int from activity_log) activity, (select count(*)::int from polling_tokens) polling,
            (select count(*)::int from users where password_hash is not null) with_password`,
  );
  return r;
}

beforeAll(async () => {
  sink = await startSmtpSink();
  await useSmtpSink(sink);
  rootId = (await createUser({ username: "root", isAdmin: true, firstName: "Rob", lastName: "Root" })).id;
  await createUser({ username: "staffer", groups: ["staff"] });
  admin = await signIn("root");
  office = await mkLocation(admin, { name: "Office", address: "10.70.0.1/24", allowed_groups: ["staff"], dns: "10.70.0.1", allowed_ips: "10.70.0.0/24" });
});
afterAll(async () => {
  await sink.close();
});

describe("POST /user/{username}/start_enrollment", () => {
  it("201 {enrollment_token, enrollment_url}; the token stored only hashed; e-mail with the link and the token when asked", async () => {
    const id = await newEnrollee("erin");
    const n = sink.messages.length;
    const res = await startEnrollment("erin", { send_enrollment_notification: true, email: "erin.private@example.com" });
    expect(res.status, res.text).toBe(201);
    expect(res.json).toEqual({ enrollment_token: expect.any(String), enrollment_url: publicUrl() });
    const token: string = res.json.enrollment_token;
    const rows = await tokenRows(id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ token_hash: sha256hex(token), kind: "enrollment", used_at: null, email: "erin.private@example.com" });
    const mail = await sink.next(n);
    expect(mail.to).toEqual(["erin.private@example.com"]);
    expect(mail.raw).toContain(token);
    expect(mail.raw).toContain("/enroll?token");
    expect((await activity("enrollment_token_added")).at(-1)).toMatchObject({ username: "root" });
  });

  it("a new token voids the old one", async () => {
    await newEnrollee("olga");
    const first = (await startEnrollment("olga")).json.enrollment_token;
    const second = (await startEnrollment("olga")).json.enrollment_token;
    const c = new Client();
    const old = await c.start(first);
    expect(old.status).toBe(401);
    expect(old.json).toEqual({ msg: "invalid token", error: "invalid token" });
    expect((await c.start(second)).status).toBe(200);
  });

  it("bad input: e-mail asked without address, enrolled or unknown user, ordinary user; nothing is issued", async () => {
    const id = await newEnrollee("nomail");
    const noEmail = await startEnrollment("nomail", { send_enrollment_notification: true });
    expect(noEmail.status).toBe(400);
    expect(noEmail.json).toMatchObject({ msg: "email: Email notification is enabled, but email was not provided", field: "email" });
    const badEmail = await startEnrollment("nomail", { send_enrollment_notification: true, email: "not-an-address" });
    expect(badEmail.status).toBe(400);
    expect(badEmail.json.field).toBe("email");
    expect(await tokenRows(id)).toHaveLength(0);
    const enrolled = await startEnrollment("staffer");
    expect(enrolled.status).toBe(400);
    expect(enrolled.json.msg).toMatch(/already enrolled/);
    expect((await startEnrollment("nobody")).status).toBe(404);
    const staff = await signIn("staffer");
    expect((await startEnrollment("nomail", {}, staff)).status).toBe(403);
    expect(await tokenRows(id)).toHaveLength(0);
  });
});

describe("the desktop client's enrolment sequence (own cookie jar)", () => {
  it("start → create_device → activate_user → network_info/poll, as defguard's proxy answers", async () => {
    // Stay within the free tier (5 users): polling is an enterprise feature, as in defguard.
    await query("delete from users where username in ('erin', 'olga', 'nomail')");
    const id = await newEnrollee("dora");
    const token = (await startEnrollment("dora")).json.enrollment_token as string;
    const c = new Client();
    const before = await snapshot();

    // 1. start: EnrollmentStartResponse and the session cookie.
    const start = await c.start(token);
    expect(start.status, start.text).toBe(200);
    expect(start.json).toMatchObject({
      admin: { name: "Rob Root", email: "root@example.com" },
      user: { first_name: "Erin", last_name: "Enrol", login: "dora", email: "dora@example.com", is_active: true, device_names: [], enrolled: false, is_admin: false },
      instance: { id: instanceId(), url: publicUrl(), proxy_url: publicUrl(), username: "dora", enterprise_enabled: true, client_traffic_policy: 0 },
      settings: { vpn_setup_optional: true, only_client_activation: false, admin_device_management: false, smtp_configured: true, mfa_required: false },
    });
    expect(start.json.final_page_content).toContain("Erin Enrol");
    expect(start.json.final_page_content).toContain("dora");
    const deadline = start.json.deadline_timestamp as number;
    expect(deadline * 1000 - Date.now()).toBeGreaterThan(590_000);
    expect(deadline * 1000 - Date.now()).toBeLessThanOrEqual(600_000);
    expect(c.jar.defguard_proxy).toBeTruthy();
    expect(c.jar.defguard_proxy).not.toContain(token);
    expect(await activity("enrollment_started", "dora")).toHaveLength(1);

    // 2. create_device with the session cookie only.
    const key = newKey();
    const dev = await c.createDevice({ name: "dora-laptop", pubkey: key });
    expect(dev.status, dev.text).toBe(200);
    expect(dev.json).toMatchObject({
      device: { id: expect.any(Number), name: "dora-laptop", pubkey: key, user_id: id, created_at: expect.any(Number) },
      configs: [
        {
          network_id: office.id,
          network_name: "Office",
          assigned_ip: "10.70.0.2",
          pubkey: office.pubkey,
          allowed_ips: "10.70.0.0/24",
          dns: "10.70.0.1",
          mfa_enabled: false,
          location_mfa_mode: 1,
        },
      ],
      instance: { username: "dora" },
      token: expect.any(String),
    });
    expect(dev.json.configs[0].config).toContain("Address = 10.70.0.2");
    const pollingToken: string = dev.json.token;
    expect(await activity("enrollment_device_added", "dora")).toEqual([{ username: "dora", module: "enrollment", device: "dora-laptop" }]);
    // The user hears of the new device (name, key, location and address).
    const deviceMail = sink.messages.find((m) => m.to.includes("dora@example.com") && /new device added/.test(m.subject));
    expect(deviceMail, "new-device e-mail").toBeDefined();
    expect(deviceMail!.raw).toContain("dora-laptop");
    expect(deviceMail!.raw).toContain(key);
    expect(deviceMail!.raw).toContain("Office: 10.70.0.2");

    // 3. activate_user: password (and phone); the session ends.
    const weak = await c.activate({ password: "weak", phone_number: "+48 123 456 789" });
    expect(weak.status).toBe(400);
    expect(weak.json).toMatchObject({ field: "password", error: weak.json.msg });
    const act = await c.activate({ password: STRONG, phone_number: "+48 123 456 789" });
    expect(act.status, act.text).toBe(200);
    expect(act.text).toBe("");
    expect(c.jar.defguard_proxy).toBeUndefined();
    const [u] = await query<{ enrolled: boolean; phone: string }>("select enrolled, phone from users where id = $1", [id]);
    expect(u).toEqual({ enrolled: true, phone: "+48 123 456 789" });
    expect(await activity("enrollment_completed", "dora")).toHaveLength(1);
    // The welcome e-mail (enrolment settings) reaches the user.
    const welcome = sink.messages.find((m) => m.to.includes("dora@example.com") && !/new device added/.test(m.subject));
    expect(welcome?.subject).toBeTruthy();
    // The admin who started the enrolment hears that it is complete.
    const notice = sink.messages.find((m) => m.to.includes("root@example.com") && /user enrollment completed/.test(m.subject));
    expect(notice, "admin notice").toBeDefined();
    expect(notice!.raw).toContain("(dora)");
    // The password works.
    const login = await call(authPost as Handler, { method: "POST", path: "/api/v1/auth", body: { username: "dora", password: STRONG } });
    expect(login.status, login.text).toBe(200);

    // The session is over: the token cannot be used again.
    const again = await c.start(token);
    expect(again.status).toBe(401);
    expect(again.json).toEqual({ msg: "token already used", error: "token already used" });
    const late = await c.createDevice({ name: "dora-2", pubkey: newKey(), token });
    expect(late.status).toBe(401);

    // 4. poll with the polling token: the current configuration.
    const polled = await c.poll(pollingToken);
    expect(polled.status, polled.text).toBe(200);
    expect(polled.json.device_config).toMatchObject({ device: { name: "dora-laptop", pubkey: key }, configs: [{ network_id: office.id, assigned_ip: "10.70.0.2" }] });
    expect(polled.json.device_config.token).toBeUndefined();
    const unknownPoll = await c.poll("no-such-polling-token");
    expect(unknownPoll.status).toBe(403);
    expect(unknownPoll.json).toEqual({ msg: "invalid token", error: "invalid token" });

    const after = await snapshot();
    expect(after).toMatchObject({ devices: before.devices + 1, links: before.links + 1, polling: before.polling + 1, with_password: before.with_password + 1 });

    // 5. Desktop activation for the now enrolled user, then network_info for the existing device.
    const desk = await startDesktop("dora", { send_enrollment_notification: true });
    expect(desk.status, desk.text).toBe(201);
    const mail = sink.messages.at(-1)!;
    expect(mail.to).toEqual(["dora@example.com"]);
    expect(mail.raw).toContain(desk.json.enrollment_token);
    expect(await activity("client_configuration_token_added")).not.toHaveLength(0);
    const c2 = new Client();
    const s2 = await c2.start(desk.json.enrollment_token);
    expect(s2.status).toBe(200);
    expect(s2.json.user).toMatchObject({ login: "dora", enrolled: true, device_names: ["dora-laptop"] });
    const info = await c2.networkInfo({ pubkey: key });
    expect(info.status, info.text).toBe(200);
    expect(info.json).toMatchObject({ device: { name: "dora-laptop", pubkey: key }, configs: [{ assigned_ip: "10.70.0.2" }], token: expect.any(String) });
    // The new polling token replaces the old one.
    expect((await c2.poll(pollingToken)).status).toBe(403);
    expect((await c2.poll(info.json.token)).status).toBe(200);
    // An enrolled user cannot be activated again.
    const reActivate = await c2.activate({ password: STRONG });
    expect(reActivate.status).toBe(400);
    expect(reActivate.json.msg).toBe("user already activated");
  });

  it("network_info for another user's device: 401; unknown key: 404; bad key: 400 — nothing handed out", async () => {
    const staffKey = (await mkDevice(await signIn("staffer"), "staffer")).device.wireguard_pubkey;
    await newEnrollee("wrong");
    const token = (await startEnrollment("wrong")).json.enrollment_token;
    const c = new Client();
    expect((await c.start(token)).status).toBe(200);
    const before = await snapshot();
    const other = await c.networkInfo({ pubkey: staffKey });
    expect(other.status).toBe(401);
    expect(other.json).toEqual({ msg: "enrollment token is not valid for specified device", error: "enrollment token is not valid for specified device" });
    expect((await c.networkInfo({ pubkey: newKey() })).status).toBe(404);
    const bad = await c.networkInfo({ pubkey: "not-a-key" });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ field: "pubkey", error: bad.json.msg });
    expect(await snapshot()).toEqual(before);
  });

  it("create_device: invalid key, empty or taken name, key in use — {msg, error}, nothing created", async () => {
    await newEnrollee("fred");
    const token = (await startEnrollment("fred")).json.enrollment_token;
    const c = new Client();
    expect((await c.start(token)).status).toBe(200);
    const key = newKey();
    expect((await c.createDevice({ name: "fred-pc", pubkey: key })).status).toBe(200);
    const before = await snapshot();
    const badKey = await c.createDevice({ name: "x", pubkey: "AAAA" });
    expect(badKey.status).toBe(400);
    expect(badKey.json).toMatchObject({ field: "pubkey", error: badKey.json.msg });
    const noName = await c.createDevice({ name: "", pubkey: newKey() });
    expect(noName.status).toBe(400);
    expect(noName.json).toMatchObject({ msg: "name: Cannot add a new device with no name", error: "name: Cannot add a new device with no name", field: "name" });
    const taken = await c.createDevice({ name: "fred-pc", pubkey: newKey() });
    expect(taken.status).toBe(409);
    expect(taken.json).toMatchObject({ msg: "Device with this name already exists", error: "Device with this name already exists", field: "name" });
    const keyUsed = await c.createDevice({ name: "fred-2", pubkey: key });
    expect(keyUsed.status).toBe(409);
    expect(keyUsed.json).toMatchObject({ field: "pubkey" });
    expect(await snapshot()).toEqual(before);
  });

  it("without a session: 401; expired token: 401 token expired; expired session: 401; forged cookie: ignored", async () => {
    const id = await newEnrollee("gina");
    const c = new Client();
    const noSession = await c.createDevice({ name: "g", pubkey: newKey() });
    expect(noSession.status).toBe(401);
    expect(noSession.json.error).toBe(noSession.json.msg);
    expect((await c.activate({ password: STRONG })).status).toBe(401);

    const token = (await startEnrollment("gina")).json.enrollment_token;
    await query("update enrollment_tokens set expires_at = now() - interval '1 second' where user_id = $1", [id]);
    const expired = await c.start(token);
    expect(expired.status).toBe(401);
    expect(expired.json).toEqual({ msg: "token expired", error: "token expired" });
    expect(c.jar.defguard_proxy).toBeUndefined();

    const token2 = (await startEnrollment("gina")).json.enrollment_token;
    expect((await c.start(token2)).status).toBe(200);
    // A resumed start inside the session is fine (the desktop client may restart).
    expect((await c.start(token2)).status).toBe(200);
    await query("update enrollment_tokens set session_ends_at = now() - interval '1 second' where token_hash = $1", [sha256hex(token2)]);
    const before = await snapshot();
    const late = await c.activate({ password: STRONG, token: token2 });
    expect(late.status).toBe(401);
    expect(late.json.msg).toMatch(/session expired/);
    expect((await c.start(token2)).status).toBe(401);
    const forged = await call(activateUserPost as Handler, {
      method: "POST",
      path: "/api/v1/enrollment/activate_user",
      body: { password: STRONG },
      cookies: { defguard_proxy: `${sha256hex(token2)}.9999999999.deadbeef` },
    });
    expect(forged.status).toBe(401);
    expect(await snapshot()).toEqual(before);
  });

  it("a disabled user cannot start; an enrolment token is not a desktop token of somebody else", async () => {
    const id = await newEnrollee("hank");
    const token = (await startEnrollment("hank")).json.enrollment_token;
    await query("update users set is_active = false where id = $1", [id]);
    const c = new Client();
    const res = await c.start(token);
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ msg: "user is disabled", error: "user is disabled" });
    expect(await activity("enrollment_started", "hank")).toHaveLength(0);
  });
});

describe("POST /user/{username}/start_desktop", () => {
  it("the user for themselves or an admin; not another user; not for an unenrolled user", async () => {
    const staff = await signIn("staffer");
    const own = await startDesktop("staffer", {}, staff);
    expect(own.status, own.text).toBe(201);
    expect(own.json).toEqual({ enrollment_token: expect.any(String), enrollment_url: publicUrl() });
    expect((await startDesktop("root", {}, staff)).status).toBe(403);
    await newEnrollee("ivan");
    const unenrolled = await startDesktop("ivan");
    expect(unenrolled.status).toBe(400);
    expect(unenrolled.json.msg).toMatch(/not enrolled/);
    // With admin-only device management, users cannot do it themselves.
    await query("update settings set admin_device_management = true where id = 1");
    try {
      expect((await startDesktop("staffer", {}, staff)).status).toBe(403);
      expect((await startDesktop("staffer")).status).toBe(201);
    } finally {
      await query("update settings set admin_device_management = false where id = 1");
    }
  });
});

describe("MFA set-up during the enrolment (/enrollment/register-mfa/code/*)", () => {
  it("TOTP: secret, a wrong code refused, the right one turns MFA on with recovery codes; then refused as already on", async () => {
    const id = await newEnrollee("tomas");
    const c = new Client();
    // No session: 401.
    expect((await c.mfaStart({ method: "Totp" })).status).toBe(401);
    expect((await c.start((await startEnrollment("tomas")).json.enrollment_token)).status).toBe(200);
    const bad = await c.mfaStart({ method: "Biometric" });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ field: "method", error: bad.json.msg });
    const s = await c.mfaStart({ method: "Totp" });
    expect(s.status, s.text).toBe(200);
    const totpSecret: string = s.json.totp_secret;
    expect(totpSecret).toMatch(/^[A-Z2-7]{16,}$/);
    const good = await totpCodeAt(totpSecret, currentStep());
    const wrong = await c.mfaFinish({ method: "Totp", code: good === "000000" ? "111111" : "000000" });
    expect(wrong.status).toBe(400);
    expect(wrong.json).toMatchObject({ msg: "Code invalid", error: "Code invalid", field: "code" });
    expect((await query<{ mfa_enabled: boolean }>("select mfa_enabled from users where id = $1", [id]))[0].mfa_enabled).toBe(false);
    const f = await c.mfaFinish({ method: 0, code: good });
    expect(f.status, f.text).toBe(200);
    expect(f.json.recovery_codes).toHaveLength(8);
    expect((await query("select mfa_enabled, totp_enabled from users where id = $1", [id]))[0]).toEqual({ mfa_enabled: true, totp_enabled: true });
    expect(await activity("mfa_totp_enabled", "tomas")).toHaveLength(1);
    expect((await c.mfaStart({ method: "Totp" })).json).toMatchObject({ msg: "Method already enabled", field: "method" });
    const again = await c.mfaFinish({ method: "Totp", code: good });
    expect(again.json).toEqual({ msg: "Mfa already enabled on the account", error: "Mfa already enabled on the account" });
  });

  it("e-mail: a code to the user's address turns e-mail codes on; an enrolled user's desktop session is refused (403)", async () => {
    const id = await newEnrollee("emil");
    const c = new Client();
    expect((await c.start((await startEnrollment("emil")).json.enrollment_token)).status).toBe(200);
    const n = sink.messages.length;
    const s = await c.mfaStart({ method: "Email" });
    expect(s.status, s.text).toBe(200);
    expect(s.json).toEqual({});
    const mail = await sink.next(n);
    expect(mail.to).toEqual(["emil@example.com"]);
    const wrong = await c.mfaFinish({ method: "Email", code: codeOf(mail) === "123456" ? "654321" : "123456" });
    expect(wrong.json).toMatchObject({ msg: "Email code invalid", field: "code" });
    const f = await c.mfaFinish({ method: "Email", code: codeOf(mail) });
    expect(f.status, f.text).toBe(200);
    expect(f.json.recovery_codes).toHaveLength(8);
    expect((await query("select mfa_enabled, email_mfa_enabled from users where id = $1", [id]))[0]).toEqual({ mfa_enabled: true, email_mfa_enabled: true });

    // An enrolled user's desktop activation session cannot set up MFA here.
    const desk = await startDesktop("staffer");
    const c2 = new Client();
    expect((await c2.start(desk.json.enrollment_token)).status).toBe(200);
    await query("update users set enrolled = true where username = 'staffer'");
    const refused = await c2.mfaStart({ method: "Totp" });
    expect(refused.status).toBe(403);
    expect(refused.json).toEqual({ msg: "User is already enrolled", error: "User is already enrolled" });
  });
});

describe("settings.mfa_required of /enrollment/start", () => {
  it("true when the instance requires MFA or a location the user may use has internal MFA; not for a location out of reach", async () => {
    await query("delete from users where username in ('tomas', 'emil')");
    await newEnrollee("mira");
    const c = new Client();
    const token = (await startEnrollment("mira")).json.enrollment_token as string;
    const required = async () => {
      const r = await c.start(token);
      expect(r.status, r.text).toBe(200);
      return r.json.settings.mfa_required as boolean;
    };
    expect(await required()).toBe(false);
    // An internal-MFA location for a group mira is not in asks nothing of her.
    await mkGroup(admin, "vault");
    const vault = await mkLocation(admin, { name: "Vault", address: "10.71.0.1/24", allowed_groups: ["vault"], location_mfa_mode: "internal" });
    try {
      expect(await required()).toBe(false);
      await query("insert into group_users (group_id, user_id) select g.id, u.id from groups g, users u where g.name = 'vault' and u.username = 'mira'");
      expect(await required()).toBe(true);
      // External MFA is passed with the OpenID provider: nothing to set up here.
      await query("update locations set location_mfa_mode = 'external' where id = $1", [vault.id]);
      expect(await required()).toBe(false);
      await query("update settings set require_mfa = true where id = 1");
      try {
        expect(await required()).toBe(true);
      } finally {
        await query("update settings set require_mfa = false where id = 1");
      }
      expect(await required()).toBe(false);
    } finally {
      await query("delete from locations where id = $1", [vault.id]);
    }
  });
});

describe("POST /mail/test_welcome", () => {
  it("sends the drafted welcome e-mail with the placeholders filled in; admin only; bad address 400", async () => {
    const n = sink.messages.length;
    const body = { to: "preview@example.com", subject: "Hi {{ first_name }}", content: "Welcome **{{ first_name }}** at {{ defguard_url }}" };
    const res = await call(welcomeTestPost as Handler, { method: "POST", path: "/api/v1/mail/test_welcome", jar: admin, body });
    expect(res.status, res.text).toBe(200);
    const mail = await sink.next(n);
    expect(mail.to).toEqual(["preview@example.com"]);
    expect(mail.subject).toBe("Hi {{ first_name }}");
    expect(mail.raw).toContain("Welcome **Rob**");
    expect(mail.raw).toContain(publicUrl());
    const staff = await signIn("staffer");
    expect((await call(welcomeTestPost as Handler, { method: "POST", path: "/api/v1/mail/test_welcome", jar: staff, body })).status).toBe(403);
    const bad = await call(welcomeTestPost as Handler, { method: "POST", path: "/api/v1/mail/test_welcome", jar: admin, body: { ...body, to: "nope" } });
    expect(bad.status).toBe(400);
    expect(bad.json.field).toBe("to");
    expect(sink.messages.length).toBe(n + 1);
  });
});
