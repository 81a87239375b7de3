/**
 * POST /enrollment/register_mobile {auth_pub_key, device_pub_key}, the call defguard's mobile
 * app makes after adding its device in an enrolment (or desktop-activation) session: the app's
 * Ed25519 key for biometric MFA is stored for that device. Through the real route handlers, with
 * the client's own cookie jar; bad input answers {msg, error} (and field) and changes nothing.
 */
import { generateKeyPairSync } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { POST as createUserPost } from "@/app/api/v1/user/route";
import { POST as startEnrollmentPost } from "@/app/api/v1/user/[username]/start_enrollment/route";
import { POST as startDesktopPost } from "@/app/api/v1/user/[username]/start_desktop/route";
import { POST as enrollStartPost } from "@/app/api/v1/enrollment/start/route";
import { POST as activateUserPost } from "@/app/api/v1/enrollment/activate_user/route";
import { POST as createDevicePost } from "@/app/api/v1/enrollment/create_device/route";
import { POST as registerMobilePost } from "@/app/api/v1/enrollment/register_mobile/route";
import { call, createUser, jarFrom, query, signIn, type CallResult, type Handler, type Jar } from "@/tests/helpers";
import { mkDevice, newKey } from "@/tests/wireguard-fixtures";

/** A mobile app: one cookie jar across its calls. */
class App {
  jar: Jar = {};
  async post(handler: Handler, path: string, body: unknown): Promise<CallResult> {
    const res = await call(handler, { method: "POST", path: `/api/v1${path}`, body, cookies: this.jar });
    this.jar = jarFrom(res, this.jar);
    return res;
  }
  start = (token: string) => this.post(enrollStartPost as Handler, "/enrollment/start", { token });
  createDevice = (body: unknown) => this.post(createDevicePost as Handler, "/enrollment/create_device", body);
  activate = (body: unknown) => this.post(activateUserPost as Handler, "/enrollment/activate_user", body);
  register = (body: unknown) => this.post(registerMobilePost as Handler, "/enrollment/register_mobile", body);
}

/** A fresh Ed25519 public key, standard base64 of its 32 bytes (as the app sends it). */
function authKey(): string {
  const { publicKey } = generateKeyPairSync("ed25519");
  return (publicKey.export({ format: "der", type: "spki" }) as Buffer).subarray(-32).toString("base64");
}

let admin: Jar;

const keys = () => query<{ device_id: number; pub_key: string }>("select device_id, pub_key from mobile_auth_keys order by device_id");
const registered = () => query<{ username: string; module: string; device: string | null }>("select username, module, device from activity_log where event = 'mobile_auth_registered' order by id");

/** An app in a running session of `username` (desktop activation when enrolled, enrolment otherwise). */
async function session(username: string, enrolled: boolean): Promise<App> {
  const handler = (enrolled ? startDesktopPost : startEnrollmentPost) as Handler;
  const path = `/api/v1/user/${username}/${enrolled ? "start_desktop" : "start_enrollment"}`;
  const issued = await call(handler, { method: "POST", path, jar: admin, body: {}, params: { username } });
  expect(issued.status, issued.text).toBe(201);
  const app = new App();
  const started = await app.start(issued.json.enrollment_token);
  expect(started.status, started.text).toBe(200);
  return app;
}

beforeAll(async () => {
  await createUser({ username: "root", isAdmin: true });
  await createUser({ username: "maja" });
  await createUser({ username: "other" });
  admin = await signIn("root");
});

describe("POST /enrollment/register_mobile", () => {
  it("stores the app's key for the device it added (desktop activation of an enrolled user); a new registration replaces it", async () => {
    const app = await session("maja", true);
    const devicePub = newKey();
    const dev = await app.createDevice({ name: "maja-phone", pubkey: devicePub });
    expect(dev.status, dev.text).toBe(200);
    const deviceId: number = dev.json.device.id;

    const first = authKey();
    const res = await app.register({ auth_pub_key: first, device_pub_key: devicePub });
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe("");
    expect(await keys()).toEqual([{ device_id: deviceId, pub_key: first }]);
    expect(await registered()).toEqual([{ username: "maja", module: "enrollment", device: "maja-phone" }]);

    const second = authKey();
    expect((await app.register({ auth_pub_key: second, device_pub_key: devicePub })).status).toBe(200);
    expect(await keys()).toEqual([{ device_id: deviceId, pub_key: second }]);
  });

  it("works in a new account's enrolment too, until the session ends", async () => {
    const res = await call(createUserPost as Handler, {
      method: "POST",
      path: "/api/v1/user",
      jar: admin,
      body: { username: "nina", first_name: "Nina", last_name: "New", email: "nina@example.com", phone: null },
    });
    expect(res.status, res.text).toBe(201);
    const app = await session("nina", false);
    const devicePub = newKey();
    expect((await app.createDevice({ name: "nina-phone", pubkey: devicePub })).status).toBe(200);
    expect((await app.register({ auth_pub_key: authKey(), device_pub_key: devicePub })).status).toBe(200);
    expect((await app.activate({ password: "Nina-Passw0rd!" })).status).toBe(200);
    // The session is over (activate_user ended it): nothing more is registered.
    const before = await keys();
    const late = await app.register({ auth_pub_key: authKey(), device_pub_key: devicePub });
    expect(late.status).toBe(401);
    expect(late.json).toEqual({ msg: late.json.msg, error: late.json.msg });
    expect(await keys()).toEqual(before);
  });

  it("bad input: no session, malformed keys, unknown device, another user's device — {msg, error}, nothing stored", async () => {
    const app = await session("maja", true);
    const mine = newKey();
    expect((await app.createDevice({ name: "maja-tablet", pubkey: mine })).status).toBe(200);
    const othersDevice = (await mkDevice(admin, "other")).device.wireguard_pubkey;
    const before = { keys: await keys(), log: await registered() };

    const anonymous = await new App().register({ auth_pub_key: authKey(), device_pub_key: mine });
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.error).toBe(anonymous.json.msg);

    for (const bad of ["", "not base64!", Buffer.alloc(31, 7).toString("base64"), Buffer.alloc(33, 7).toString("base64")]) {
      const r = await app.register({ auth_pub_key: bad, device_pub_key: mine });
      expect(r.status, bad).toBe(400);
      expect(r.json).toMatchObject({ field: "auth_pub_key", error: r.json.msg });
      if (bad) expect(r.json.msg).toBe("auth_pub_key: Invalid biometric public key.");
    }
    const badDevice = await app.register({ auth_pub_key: authKey(), device_pub_key: "AAAA" });
    expect(badDevice.status).toBe(400);
    expect(badDevice.json).toEqual({ msg: "device_pub_key: Invalid device public key.", error: "device_pub_key: Invalid device public key.", field: "device_pub_key" });
    const missing = await app.register({ device_pub_key: mine });
    expect(missing.status).toBe(400);
    expect(missing.json.field).toBe("auth_pub_key");

    const unknown = await app.register({ auth_pub_key: authKey(), device_pub_key: newKey() });
    expect(unknown.status).toBe(400);
    // As every field error of the console: "<field>: <defguard's text>".
    const text = "device_pub_key: Device with given public key doesn't exist";
    expect(unknown.json).toEqual({ msg: text, error: text, field: "device_pub_key" });

    const foreign = await app.register({ auth_pub_key: authKey(), device_pub_key: othersDevice });
    expect(foreign.status).toBe(401);
    expect(foreign.json).toEqual({ msg: "enrollment token is not valid for specified device", error: "enrollment token is not valid for specified device" });

    expect({ keys: await keys(), log: await registered() }).toEqual(before);
    // The session still works for a good request afterwards.
    expect((await app.register({ auth_pub_key: authKey(), device_pub_key: mine })).status).toBe(200);
    expect((await keys()).length).toBe(before.keys.length + 1);
  });
});
