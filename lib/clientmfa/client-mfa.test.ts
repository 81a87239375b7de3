/**
 * MFA for VPN locations through the real route handlers, a real database, the local SMTP sink
 * and a real gRPC gateway stream (the NOTIFY-fed hub): /client-mfa/start and /finish as a
 * defguard desktop client calls them — TOTP with a computed code, an e-mail code from the sink,
 * a wrong code (vpn_client_mfa_failed, 401 {msg, error}), a spent login, unknown keys and
 * locations, methods a location does not take — the peer reaching the gateway only after
 * /finish, with the PSK only the client got, and leaving it when the session job ends an idle
 * session.
 */
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as startPost } from "@/app/api/v1/client-mfa/start/route";
import { POST as finishPost } from "@/app/api/v1/client-mfa/finish/route";
import { freePort } from "@/lib/db/embedded";
import { secret } from "@/lib/config";
import { decryptSecret, encryptSecret } from "@/lib/crypto";
import { loadProtos, startGrpcServer, type GrpcServerHandle } from "@/lib/grpc/server";
import { startHub, stopHub, subscriberCount } from "@/lib/gateways/hub";
import { gatewayToken } from "@/lib/gateways/jwt";
import { desiredPeers } from "@/lib/gateways/service";
import { createLocation, updateLocation } from "@/lib/locations/service";
import { locationSchema } from "@/lib/locations/schema";
import { createUserDevice } from "@/lib/devices/service";
import { createNetworkDevice } from "@/lib/devices/network";
import { generateKeyPair, isValidKey } from "@/lib/wireguard/keys";
import { currentStep, newTotpSecret, totpCodeAt } from "@/lib/mfa/totp";
import { call, createUser, query, type CallResult, type Handler } from "@/tests/helpers";
import { startSmtpSink, useSmtpSink, type SmtpSink } from "@/tests/smtp-sink";
import { codeOf } from "@/e2e/smtp-sink";
import { endIdleMfaSessions, MAX_FAILED_ATTEMPTS, MSG } from "./service";
import { registerExternalMfaProvider } from "./external";

const ACTOR = { userId: null, username: "client-mfa-test", ip: null };
let sink: SmtpSink;
let server: GrpcServerHandle;
let client: any;
let secure: number; // internal MFA
let open: number; // no MFA
let external: number; // external MFA
let totpSecret = "";
let laptop: { id: number; publicKey: string };
let phone: { id: number; publicKey: string };
let plainUserDevice: { id: number; publicKey: string };

const start = (body: unknown) => call(startPost as Handler, { method: "POST", path: "/api/v1/client-mfa/start", body });
const finish = (body: unknown) => call(finishPost as Handler, { method: "POST", path: "/api/v1/client-mfa/finish", body });

function md(token: string, hostname: string) {
  const m = new grpc.Metadata();
  m.set("authorization", token);
  m.set("hostname", hostname);
  return m;
}

function openUpdates(locationId: number, hostname: string) {
  const got: any[] = [];
  const stream = client.Updates({}, md(gatewayToken(locationId, secret("gatewaySecret")), hostname));
  stream.on("data", (u: any) => got.push(u));
  stream.on("error", () => {});
  return { got, stream, peerUpdates: (pubkey: string) => got.filter((u) => u.peer?.pubkey === pubkey) };
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not in time`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const location = (name: string, address: string, mode: "disabled" | "internal" | "external") =>
  locationSchema.parse({ name, address, endpoint: "vpn.example.com", port: 51820, location_mfa_mode: mode });

async function device(username: string, name: string) {
  const keys = generateKeyPair();
  const created = await createUserDevice(ACTOR, username, { name, wireguard_pubkey: keys.publicKey, description: null });
  return { id: created.device.id as number, publicKey: keys.publicKey };
}

const link = async (deviceId: number, locationId: number) =>
  (
    await query<{ is_authorized: boolean; preshared_key: string | null; authorized_at: Date | null }>(
      "select is_authorized, preshared_key, authorized_at from device_locations where device_id = $1 and location_id = $2",
      [deviceId, locationId],
    )
  )[0];

const events = (event: string) => query<{ username: string; module: string; device: string; location: string; description: string }>("select username, module, device, location, description from activity_log where event = $1 order by id", [event]);

async function unchanged<T>(fn: () => Promise<T>): Promise<T> {
  const snap = () =>
    query(`select (select count(*)::int from client_mfa_sessions) sessions, (select count(*)::int from activity_log) activity,
                  (select count(*)::int from device_locations where is_authorized) authorized`);
  const before = await snap();
  const r = await fn();
  expect(await snap()).toEqual(before);
  return r;
}

function expectError(res: CallResult, status: number, msg: string) {
  expect(res.status, res.text).toBe(status);
  expect(res.json).toMatchObject({ msg, error: msg });
}

beforeAll(async () => {
  sink = await startSmtpSink();
  await useSmtpSink(sink);
  await startHub();
  server = await startGrpcServer("127.0.0.1", await freePort());
  client = new (loadProtos().gateway.GatewayService as any)(`127.0.0.1:${server.port}`, grpc.credentials.createInsecure());
  secure = (await createLocation(ACTOR, location("Secure", "198.18.10.1/24", "internal"))).id;
  open = (await createLocation(ACTOR, location("Open", "198.18.11.1/24", "disabled"))).id;
  external = (await createLocation(ACTOR, location("Ext", "198.18.12.1/24", "external"))).id;
  const mara = await createUser({ username: "mara", email: "mara@example.com" });
  await createUser({ username: "plain" });
  totpSecret = newTotpSecret();
  await query("insert into mfa_secrets (user_id, totp_secret_enc) values ($1, $2)", [mara.id, encryptSecret(totpSecret)]);
  await query("update users set totp_enabled = true, email_mfa_enabled = true, mfa_enabled = true, mfa_method = 'OneTimePassword' where id = $1", [mara.id]);
  laptop = await device("mara", "laptop");
  phone = await device("mara", "phone");
  plainUserDevice = await device("plain", "desk");
});

afterAll(async () => {
  client?.close();
  await server?.stop();
  await stopHub();
  await sink?.close();
  registerExternalMfaProvider(null);
});

describe("POST /client-mfa/start and /finish", () => {
  it("TOTP: no peer before /finish; then the peer with the PSK only the client got, and vpn_client_connected_mfa", async () => {
    const u = openUpdates(secure, "gw-secure");
    await until(() => subscriberCount(secure) === 1, "stream open");
    expect((await desiredPeers(secure)).map((p) => p.pubkey)).not.toContain(laptop.publicKey);

    const s = await start({ location_id: secure, pubkey: laptop.publicKey, method: 0 });
    expect(s.status, s.text).toBe(200);
    expect(Object.keys(s.json)).toEqual(["token"]);
    const [row] = await query<{ token_hash: string }>("select token_hash from client_mfa_sessions where pubkey = $1", [laptop.publicKey]);
    expect(row.token_hash).not.toBe(s.json.token); // stored hashed
    await new Promise((r) => setTimeout(r, 300));
    expect(u.peerUpdates(laptop.publicKey), "no peer update after /start").toEqual([]);
    expect(await link(laptop.id, secure)).toMatchObject({ is_authorized: false, preshared_key: null });

    const code = await totpCodeAt(totpSecret, currentStep());
    const f = await finish({ token: s.json.token, code });
    expect(f.status, f.text).toBe(200);
    expect(Object.keys(f.json)).toEqual(["preshared_key"]);
    const psk: string = f.json.preshared_key;
    expect(isValidKey(psk)).toBe(true);

    await until(() => u.peerUpdates(laptop.publicKey).length > 0, "peer update after /finish");
    const [upd] = u.peerUpdates(laptop.publicKey);
    expect(upd).toMatchObject({ update_type: "CREATE", peer: { pubkey: laptop.publicKey, preshared_key: psk } });
    expect((await desiredPeers(secure)).find((p) => p.pubkey === laptop.publicKey)?.preshared_key).toBe(psk);
    // The other device of the same user is still not a peer; the PSK is stored encrypted.
    expect((await desiredPeers(secure)).map((p) => p.pubkey)).not.toContain(phone.publicKey);
    const l = await link(laptop.id, secure);
    expect(l.is_authorized).toBe(true);
    expect(l.preshared_key).not.toBe(psk);
    expect(decryptSecret(l.preshared_key!)).toBe(psk);
    expect((await events("vpn_client_connected_mfa")).at(-1)).toMatchObject({ username: "mara", module: "vpn", device: "laptop", location: "Secure" });
    u.stream.cancel();
    // The gateway's disconnect is logged once the server sees the cancel: wait for it, so the
    // activity count below compares the refused call alone.
    await until(async () => (await events("gateway_disconnected")).some((e) => e.description === "Gateway gw-secure disconnected"), "gateway disconnect recorded");

    // The login is spent: the same token again.
    expectError(await unchanged(() => finish({ token: s.json.token, code })), 400, MSG.sessionNotFound);
  });

  it("a wrong code: 401 {msg, error} 'unauthorized', vpn_client_mfa_failed, no peer; the login is dropped after too many", async () => {
    const before = (await events("vpn_client_mfa_failed")).length;
    const s = await start({ location_id: secure, pubkey: phone.publicKey, method: 0 });
    expect(s.status, s.text).toBe(200);
    const good = await totpCodeAt(totpSecret, currentStep() + 1);
    const wrong = good === "000000" ? "111111" : "000000";
    const f = await finish({ token: s.json.token, code: wrong });
    expectError(f, 401, MSG.unauthorized);
    const failed = await events("vpn_client_mfa_failed");
    expect(failed).toHaveLength(before + 1);
    expect(failed.at(-1)).toMatchObject({ username: "mara", module: "vpn", device: "phone", location: "Secure" });
    expect(failed.at(-1)!.description).toContain("invalid TOTP code");
    expect(await link(phone.id, secure)).toMatchObject({ is_authorized: false, preshared_key: null });
    expect((await desiredPeers(secure)).map((p) => p.pubkey)).not.toContain(phone.publicKey);
    // No code at all: 400 naming the field, also logged.
    expectError(await finish({ token: s.json.token }), 400, MSG.totpMissing);
    expect(await events("vpn_client_mfa_failed")).toHaveLength(before + 2);
    // The right code after a wrong one still works (the login stays for another try).
    const ok = await finish({ token: s.json.token, code: good });
    expect(ok.status, ok.text).toBe(200);
    expect((await desiredPeers(secure)).map((p) => p.pubkey)).toContain(phone.publicKey);

    // Too many wrong codes: the login is gone.
    const again = await start({ location_id: secure, pubkey: phone.publicKey, method: 0 });
    for (let i = 0; i < MAX_FAILED_ATTEMPTS; i++) expectError(await finish({ token: again.json.token, code: wrong }), 401, MSG.unauthorized);
    expectError(await finish({ token: again.json.token, code: wrong }), 400, MSG.sessionNotFound);
  });

  it("e-mail: the code goes through SMTP and finishes the login", async () => {
    const n = sink.messages.length;
    const s = await start({ location_id: secure, pubkey: laptop.publicKey, method: 1 });
    expect(s.status, s.text).toBe(200);
    const mail = await sink.next(n);
    expect(mail.to).toEqual(["mara@example.com"]);
    const code = codeOf(mail);
    expect(mail.raw).toContain("connect to the VPN");
    // A wrong e-mail code first.
    expectError(await finish({ token: s.json.token, code: code === "123456" ? "654321" : "123456" }), 401, MSG.unauthorized);
    const f = await finish({ token: s.json.token, code });
    expect(f.status, f.text).toBe(200);
    expect(decryptSecret((await link(laptop.id, secure)).preshared_key!)).toBe(f.json.preshared_key);
    // The code is spent with the login.
    const again = await start({ location_id: secure, pubkey: laptop.publicKey, method: 1 });
    expectError(await finish({ token: again.json.token, code }), 401, MSG.unauthorized);
  });

  it("refuses unknown keys and locations, locations without MFA, methods the location or the user does not have; nothing changes", async () => {
    expectError(await unchanged(() => start({ location_id: secure, pubkey: generateKeyPair().publicKey, method: 0 })), 400, MSG.deviceNotFound);
    expect((await start({ location_id: secure, pubkey: generateKeyPair().publicKey, method: 0 })).json.field).toBe("pubkey");
    expectError(await unchanged(() => start({ location_id: 999_999, pubkey: laptop.publicKey, method: 0 })), 400, MSG.locationNotFound);
    expectError(await unchanged(() => start({ location_id: open, pubkey: laptop.publicKey, method: 0 })), 400, MSG.mfaNotEnabled);
    expectError(await unchanged(() => start({ location_id: secure, pubkey: laptop.publicKey, method: 2 })), 400, MSG.methodNotSupported);
    expectError(await unchanged(() => start({ location_id: secure, pubkey: laptop.publicKey, method: 7 })), 400, MSG.invalidMethod);
    expectError(await unchanged(() => start({ location_id: secure, pubkey: laptop.publicKey, method: 3 })), 400, MSG.methodNotAvailable);
    expectError(await unchanged(() => start({ location_id: secure, pubkey: plainUserDevice.publicKey, method: 0 })), 400, MSG.methodNotAvailable);
    expectError(await unchanged(() => start({ location_id: external, pubkey: laptop.publicKey, method: 0 })), 400, MSG.methodNotSupported);
    // External MFA until an external OpenID provider exists: a clear "not configured".
    expectError(await unchanged(() => start({ location_id: external, pubkey: laptop.publicKey, method: 2 })), 400, MSG.externalNotConfigured);
    // Bad input: 400 naming the field.
    for (const [body, field] of [
      [{ location_id: secure, method: 0 }, "pubkey"],
      [{ location_id: secure, pubkey: "not-a-key", method: 0 }, "pubkey"],
      [{ location_id: "x", pubkey: laptop.publicKey, method: 0 }, "location_id"],
      [{ location_id: secure, pubkey: laptop.publicKey, method: "totp" }, "method"],
    ] as const) {
      const r = await unchanged(() => start(body));
      expect(r.status, r.text).toBe(400);
      expect(r.json.field).toBe(field);
      expect(r.json.error).toBe(r.json.msg);
    }
    expectError(await unchanged(() => finish({ token: "no-such-login-token-0123456789" })), 400, MSG.sessionNotFound);
    expectError(await unchanged(() => finish({ token: "!" })), 400, MSG.invalidToken);
    const r = await unchanged(() => finish({ code: "123456" }));
    expect(r.status).toBe(400);
    expect(r.json.field).toBe("token");
  });

  it("external MFA: method 2 once a provider is registered; /finish waits for the OpenID step (428)", async () => {
    registerExternalMfaProvider({ available: async () => true, authorizationUrl: async (token) => `https://idp.example/authorize?for=${token.length}` });
    const extDevice = await device("mara", "tablet");
    const s = await start({ location_id: external, pubkey: extDevice.publicKey, method: 2 });
    expect(s.status, s.text).toBe(200);
    expect(s.json.url).toBe(`https://idp.example/authorize?for=${s.json.token.length}`);
    expectError(await finish({ token: s.json.token }), 428, MSG.oidcNotCompleted);
    const { completeExternalMfa } = await import("./service");
    const [mara] = await query<{ id: number }>("select id from users where username = 'mara'");
    expect(await completeExternalMfa(s.json.token, mara.id)).toBe(true);
    const f = await finish({ token: s.json.token });
    expect(f.status, f.text).toBe(200);
    expect((await desiredPeers(external)).find((p) => p.pubkey === extDevice.publicKey)?.preshared_key).toBe(f.json.preshared_key);
    registerExternalMfaProvider(null);
  });

  it("network devices are not subject to location MFA", async () => {
    const loc = (await createLocation(ACTOR, location("Servers", "198.18.13.1/24", "disabled"))).id;
    const key = generateKeyPair().publicKey;
    const [admin] = await query<{ id: number }>("insert into users (username, first_name, last_name, email) values ('nd-admin', 'N', 'D', 'nd@example.com') returning id");
    await createNetworkDevice({ userId: admin.id, username: "nd-admin", ip: null }, { name: "srv", location_id: loc, assigned_ips: ["198.18.13.9"], wireguard_pubkey: key, description: null });
    await updateLocation(ACTOR, loc, location("Servers", "198.18.13.1/24", "internal"));
    const peer = (await desiredPeers(loc)).find((p) => p.pubkey === key);
    expect(peer).toBeDefined();
    expect(peer!.preshared_key).toBeUndefined();
    expectError(await unchanged(() => start({ location_id: loc, pubkey: key, method: 0 })), 400, MSG.networkDevice);
  });
});

describe("MFA session job", () => {
  it("ends sessions without a handshake for peer_disconnect_threshold: peer deleted on the stream, PSK discarded, vpn_client_disconnected_mfa", async () => {
    // Both of mara's devices have sessions in Secure (from the tests above).
    expect((await link(laptop.id, secure)).is_authorized).toBe(true);
    expect((await link(phone.id, secure)).is_authorized).toBe(true);
    const u = openUpdates(secure, "gw-secure-2");
    await until(() => subscriberCount(secure) === 1, "stream open");
    // Fresh sessions are kept whatever the handshake.
    expect((await endIdleMfaSessions()).ended).toBe(0);
    // laptop: authorised long ago, last handshake long ago → ends. phone: handshake just now → stays.
    await query("update device_locations set authorized_at = now() - interval '1 hour', last_handshake = now() - interval '10 minutes' where device_id = $1 and location_id = $2", [laptop.id, secure]);
    await query("update device_locations set authorized_at = now() - interval '1 hour', last_handshake = now() - interval '5 seconds' where device_id = $1 and location_id = $2", [phone.id, secure]);
    const before = (await events("vpn_client_disconnected_mfa")).length;
    expect((await endIdleMfaSessions()).ended).toBe(1);
    await until(() => u.peerUpdates(laptop.publicKey).length > 0, "peer removal");
    expect(u.peerUpdates(laptop.publicKey)[0]).toMatchObject({ update_type: "DELETE", peer: { pubkey: laptop.publicKey } });
    expect(await link(laptop.id, secure)).toMatchObject({ is_authorized: false, preshared_key: null });
    expect((await link(phone.id, secure)).is_authorized).toBe(true);
    const peers = (await desiredPeers(secure)).map((p) => p.pubkey);
    expect(peers).not.toContain(laptop.publicKey);
    expect(peers).toContain(phone.publicKey);
    const ev = await events("vpn_client_disconnected_mfa");
    expect(ev).toHaveLength(before + 1);
    expect(ev.at(-1)).toMatchObject({ username: "mara", module: "vpn", device: "laptop", location: "Secure" });
    // Idempotent.
    expect((await endIdleMfaSessions()).ended).toBe(0);
    // A session that never made a handshake also ends after the threshold.
    await query("update device_locations set authorized_at = now() - interval '1 hour', last_handshake = null where device_id = $1 and location_id = $2", [phone.id, secure]);
    expect((await endIdleMfaSessions()).ended).toBe(1);
    await until(() => u.peerUpdates(phone.publicKey).length > 0, "phone removal");
    u.stream.cancel();
  });

  it("prunes logins past their deadline", async () => {
    const s = await start({ location_id: secure, pubkey: laptop.publicKey, method: 0 });
    await query("update client_mfa_sessions set expires_at = now() - interval '1 second' where pubkey = $1", [laptop.publicKey]);
    expectError(await finish({ token: s.json.token, code: "123456" }), 400, MSG.invalidToken);
    await start({ location_id: secure, pubkey: laptop.publicKey, method: 0 });
    await query("update client_mfa_sessions set expires_at = now() - interval '1 second' where pubkey = $1", [laptop.publicKey]);
    expect((await endIdleMfaSessions()).loginsPruned).toBe(1);
    expect(await query("select 1 from client_mfa_sessions")).toHaveLength(0);
  });
});
