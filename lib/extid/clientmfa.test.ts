/**
 * Client MFA through the external OpenID provider (location MFA "external", method 2) against a
 * real oidc-provider upstream (tests/upstream-oidc.ts): /client-mfa/start answers the
 * provider's authorization URL, the upstream sign-in comes back to /openid/mfa/callback, and
 * /client-mfa/finish then gives the device its preshared key, which the gateways' peer carries.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { POST as providerPost } from "@/app/api/v1/openid/provider/route";
import { POST as startPost } from "@/app/api/v1/client-mfa/start/route";
import { POST as finishPost } from "@/app/api/v1/client-mfa/finish/route";
import { POST as mfaCallbackPost } from "@/app/api/v1/openid/mfa/callback/route";
import { createLocation } from "@/lib/locations/service";
import { locationSchema } from "@/lib/locations/schema";
import { createUserDevice } from "@/lib/devices/service";
import { desiredPeers } from "@/lib/gateways/service";
import { MSG as CMFA } from "@/lib/clientmfa/service";
import { generateKeyPair } from "@/lib/wireguard/keys";
import { call, createUser, query, signIn, type Handler, type Jar } from "@/tests/helpers";
import { signInUpstream, startUpstream, type Upstream } from "@/tests/upstream-oidc";
import { GET as authInfoGet } from "@/app/api/v1/openid/auth_info/route";
import { callbackUrl, FLOW_COOKIE } from "./login";
import { MFA_MSG, mfaAuthorizationUrlForLogin, mfaCallbackUrl } from "./clientmfa";

const ACTOR = { userId: null, username: "extid-mfa-test", ip: null };
let up: Upstream;
let admin: Jar;
let external: number;
let tablet: { id: number; publicKey: string };

const start = (body: unknown) => call(startPost as Handler, { method: "POST", path: "/api/v1/client-mfa/start", body });
const finish = (body: unknown) => call(finishPost as Handler, { method: "POST", path: "/api/v1/client-mfa/finish", body });
const callback = (body: unknown) => call(mfaCallbackPost as Handler, { method: "POST", path: "/api/v1/openid/mfa/callback", body });

const setProvider = (extra: Record<string, unknown> = {}) =>
  call(providerPost as Handler, {
    method: "POST",
    jar: admin,
    body: { name: "Custom", base_url: up.issuer, client_id: up.clientId, client_secret: up.clientSecret, display_name: "Upstream", use_openid_for_client_mfa: true, ...extra },
  });

/** The upstream sign-in as `login` for the authorization URL; the provider's answer posted to the callback. */
async function confirm(url: string, login: string) {
  const back = await signInUpstream(url, login);
  expect(back.href.startsWith(mfaCallbackUrl())).toBe(true);
  return callback({ code: back.searchParams.get("code"), state: back.searchParams.get("state"), iss: back.searchParams.get("iss") ?? undefined });
}

const link = async () => (await query<{ is_authorized: boolean; preshared_key: string | null }>("select is_authorized, preshared_key from device_locations where device_id = $1 and location_id = $2", [tablet.id, external]))[0];

beforeAll(async () => {
  up = await startUpstream({ redirectUris: [callbackUrl(), mfaCallbackUrl()] });
  await createUser({ username: "root", isAdmin: true });
  admin = await signIn("root");
  await createUser({ username: "mara", email: "mara@corp.example" });
  await createUser({ username: "eve", email: "eve@corp.example" });
  external = (await createLocation(ACTOR, locationSchema.parse({ name: "External", address: "198.18.21.1/24", endpoint: "vpn.example.com", port: 51820, location_mfa_mode: "external" }))).id;
  const keys = generateKeyPair();
  const created = await createUserDevice(ACTOR, "mara", { name: "tablet", wireguard_pubkey: keys.publicKey, description: null });
  tablet = { id: created.device.id as number, publicKey: keys.publicKey };
  up.accounts.set("sub-mara", { email: "mara@corp.example", given_name: "Mara" });
  up.accounts.set("sub-eve", { email: "eve@corp.example" });
  up.accounts.set("sub-stranger", { email: "stranger@elsewhere.example" });
});

afterAll(async () => {
  await up?.close();
});

beforeEach(async () => {
  expect((await setProvider()).status).toBe(201);
});

describe("client MFA through the external provider", () => {
  it("start gives the provider's authorization URL; after the sign-in there, finish gives the preshared key", async () => {
    const s = await start({ location_id: external, pubkey: tablet.publicKey, method: 2 });
    expect(s.status, s.text).toBe(200);
    const url = new URL(s.json.url);
    expect(url.origin).toBe(up.issuer);
    expect(url.searchParams.get("client_id")).toBe(up.clientId);
    expect(url.searchParams.get("redirect_uri")).toBe(mfaCallbackUrl());
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    // The login token (the key to /finish) travels sealed, never readable in the URL.
    expect(s.json.url).not.toContain(s.json.token);
    expect((await finish({ token: s.json.token })).status).toBe(428);

    // The page defguard's desktop client opens (/openid/mfa?token=…) leads to the same provider.
    const viaPage = new URL(await mfaAuthorizationUrlForLogin(s.json.token));
    expect(viaPage.origin + viaPage.pathname).toBe(url.origin + url.pathname);
    expect(viaPage.searchParams.get("redirect_uri")).toBe(mfaCallbackUrl());
    await expect(mfaAuthorizationUrlForLogin("unknown-login-token-0123456789")).rejects.toThrow(MFA_MSG.noLogin);

    const done = await confirm(s.json.url, "sub-mara");
    expect(done.status, done.text).toBe(200);
    expect(done.json).toEqual({ location: "External", device: "tablet" });
    const f = await finish({ token: s.json.token });
    expect(f.status, f.text).toBe(200);
    expect(f.json.preshared_key).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(await link()).toMatchObject({ is_authorized: true });
    expect((await desiredPeers(external)).find((p) => p.pubkey === tablet.publicKey)?.preshared_key).toBe(f.json.preshared_key);
    const [ev] = await query<{ username: string; description: string }>("select username, description from activity_log where event = 'vpn_client_connected_mfa' order by id desc limit 1");
    expect(ev).toMatchObject({ username: "mara", description: expect.stringContaining("(OpenID)") });
  });

  it("someone else signed in at the provider does not confirm the login; a stranger has no account", async () => {
    const s = await start({ location_id: external, pubkey: tablet.publicKey, method: 2 });
    const eve = await confirm(s.json.url, "sub-eve");
    expect(eve.status).toBe(403);
    expect(eve.json.msg).toBe(MFA_MSG.notOwner);
    expect((await finish({ token: s.json.token })).status).toBe(428);
    expect(await query("select 1 from activity_log where event = 'vpn_client_mfa_failed' and username = 'eve'")).toHaveLength(1);
    const stranger = await confirm(s.json.url, "sub-stranger");
    expect(stranger.status).toBe(403);
    expect(stranger.json.msg).toBe(MFA_MSG.noAccount);
    expect(await query("select 1 from users where email = 'stranger@elsewhere.example'")).toHaveLength(0);
    expect((await finish({ token: s.json.token })).status).toBe(428);
  });

  it("refuses a forged or tampered state, a nonce that is not the flow's, and a code used twice", async () => {
    const s = await start({ location_id: external, pubkey: tablet.publicKey, method: 2 });
    const forged = await callback({ code: "x", state: "v1:AAAA:BBBB:CCCC" });
    expect(forged.status).toBe(400);
    expect(forged.json).toMatchObject({ msg: MFA_MSG.badState, field: "state" });
    // The console sign-in's sealed flow is not an MFA state either.
    const info = await call(authInfoGet as Handler, { path: "/api/v1/openid/auth_info" });
    expect((await callback({ code: "x", state: info.cookies[FLOW_COOKIE].value })).json.msg).toBe(MFA_MSG.badState);
    const bad = new URL(s.json.url);
    bad.searchParams.set("nonce", "attacker-nonce");
    const back = await signInUpstream(bad.href, "sub-mara");
    const wrongNonce = await callback({ code: back.searchParams.get("code"), state: back.searchParams.get("state") });
    expect(wrongNonce.status).toBe(401);
    expect(wrongNonce.json.msg).toMatch(/nonce/);
    expect((await finish({ token: s.json.token })).status).toBe(428);
    const good = await signInUpstream(s.json.url, "sub-mara");
    const body = { code: good.searchParams.get("code"), state: good.searchParams.get("state") };
    expect((await callback(body)).status).toBe(200);
    expect((await callback(body)).status).toBe(401);
    const missing = await callback({ state: "x" });
    expect(missing.status).toBe(400);
    expect(missing.json.field).toBe("code");
  });

  it("with 'use OpenID for client MFA' off, method 2 is not available and pending confirmations are refused", async () => {
    const s = await start({ location_id: external, pubkey: tablet.publicKey, method: 2 });
    expect(s.status).toBe(200);
    expect((await setProvider({ use_openid_for_client_mfa: false })).status).toBe(201);
    const off = await start({ location_id: external, pubkey: tablet.publicKey, method: 2 });
    expect(off.status).toBe(400);
    expect(off.json.msg).toBe(CMFA.externalNotConfigured);
    const late = await confirm(s.json.url, "sub-mara");
    expect(late.status).toBe(400);
    expect(late.json.msg).toBe(MFA_MSG.notEnabled);
    expect((await finish({ token: s.json.token })).status).toBe(428);
  });
});
