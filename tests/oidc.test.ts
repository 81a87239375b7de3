/**
 * The OpenID Connect provider driven by a real relying party (openid-client) over HTTP against
 * real PostgreSQL: code flow with PKCE, consent, id_token validation (issuer, audience, nonce,
 * signature via the JWKS), userinfo, refresh with rotation, and the refusals of the issue.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as oidc from "openid-client";
import { POST as appsPost } from "@/app/api/v1/oauth/route";
import { DELETE as appDelete, GET as appGet, POST as appStatePost, PUT as appPut } from "@/app/api/v1/oauth/[client_id]/route";
import { GET as appsGet } from "@/app/api/v1/oauth/route";
import { POST as secretPost } from "@/app/api/v1/oauth/[client_id]/secret/route";
import { pruneExpired } from "@/lib/oidc/adapter";
import { POST as rotatePost } from "@/app/api/v1/oauth/keys/rotate/route";
import { DELETE as consentDelete } from "@/app/api/v1/user/[username]/oauth_app/[client_id]/route";
import { GET as userGet } from "@/app/api/v1/user/[username]/route";
import { SESSION_COOKIE, XSRF_COOKIE } from "@/lib/auth/session";
import { call, createUser, query, signIn, type Jar } from "./helpers";
import { startOidcServer } from "./oidc-server";

const CALLBACK = "https://wiki.example.org/callback";
let base: { url: string; close: () => Promise<void> };
let admin: Jar;
let alice: Jar;
let app: { client_id: string; client_secret: string; id: number };
let aliceId: number;
const children: ChildProcess[] = [];

type Browser = Record<string, string>;

function cookieHeader(jar: Record<string, string>) {
  return Object.entries(jar)
    .map(([k, v]) => `${k}=${v}`)
    .join("; ");
}

function keep(jar: Browser, res: Response) {
  for (const h of res.headers.getSetCookie()) {
    const [pair, ...attrs] = h.split(";");
    const i = pair.indexOf("=");
    const name = pair.slice(0, i).trim();
    const value = pair.slice(i + 1).trim();
    const expired = attrs.some((a) => /expires=thu, 01 jan 1970/i.test(a.trim()));
    if (!value || expired) delete jar[name];
    else jar[name] = value;
  }
}

interface Step {
  status: number;
  url: string;
  location?: string;
  text: string;
  headers: Headers;
}

/**
 * A browser: follows redirects within the console, keeps cookies, stops at the app's callback
 * (or any other origin) and at pages.
 */
async function browse(jar: Browser, start: string, init: RequestInit = {}): Promise<Step> {
  let url = start;
  let req: RequestInit = init;
  for (let i = 0; i < 10; i++) {
    const headers = new Headers(req.headers);
    if (Object.keys(jar).length) headers.set("cookie", cookieHeader(jar));
    const res = await fetch(url, { ...req, headers, redirect: "manual" });
    keep(jar, res);
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location) {
      const next = new URL(location, url).toString();
      if (new URL(next).origin !== new URL(base.url).origin) return { status: res.status, url, location: next, text: await res.text(), headers: res.headers };
      if (new URL(next).pathname === "/login") return { status: res.status, url, location: next, text: await res.text(), headers: res.headers };
      url = next;
      req = {};
      continue;
    }
    return { status: res.status, url, text: await res.text(), headers: res.headers };
  }
  throw new Error("too many redirects");
}

function signedIn(jar: Jar): Browser {
  return { [SESSION_COOKIE]: jar[SESSION_COOKIE], [XSRF_COOKIE]: jar[XSRF_COOKIE] };
}

/** Submit the consent page's form (as the browser does). */
async function decide(browser: Browser, page: Step, decision: "allow" | "deny"): Promise<Step> {
  const action = /<form method="post" action="([^"]+)"/.exec(page.text)?.[1];
  const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.text)?.[1];
  expect(action, page.text).toBeTruthy();
  return browse(browser, new URL(action!.replace(/&amp;/g, "&"), base.url).toString(), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ xsrf: xsrf!, decision }).toString(),
  });
}

async function rp(opts: { post?: boolean; client?: typeof app } = {}) {
  const c = opts.client ?? app;
  const auth = opts.post ? oidc.ClientSecretPost(c.client_secret) : oidc.ClientSecretBasic(c.client_secret);
  const config = await oidc.discovery(new URL(base.url), c.client_id, undefined, auth, { execute: [oidc.allowInsecureRequests] });
  oidc.enableNonRepudiationChecks(config);
  return config;
}

interface Pending {
  url: URL;
  verifier: string;
  state: string;
  nonce: string;
}

async function authRequest(config: oidc.Configuration, extra: Record<string, string> = {}): Promise<Pending> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: CALLBACK,
    scope: "openid profile email phone groups",
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: "S256",
    state,
    nonce,
    ...extra,
  });
  return { url, verifier, state, nonce };
}

/** Signed-in browser through to the callback, accepting consent if asked. */
async function codeFor(config: oidc.Configuration, user: Jar, extra: Record<string, string> = {}) {
  const p = await authRequest(config, extra);
  const browser = signedIn(user);
  let step = await browse(browser, p.url.toString());
  if (!step.location) step = await decide(browser, step, "allow");
  expect(step.location, step.text).toMatch(/^https:\/\/wiki\.example\.org\/callback\?/);
  return { ...p, callback: new URL(step.location!), browser };
}

beforeAll(async () => {
  base = await startOidcServer();
  process.env.DEFGUARD_URL = base.url;
  await createUser({ username: "root", isAdmin: true });
  const a = await createUser({ username: "alice", firstName: "Alice", lastName: "Liddell", email: "alice@example.org", groups: ["wiki-editors"] });
  aliceId = a.id;
  await query("update users set phone = '+48123456789' where id = $1", [a.id]);
  admin = await signIn("root");
  alice = await signIn("alice");
  const res = await call(appsPost, {
    method: "POST",
    jar: admin,
    body: { name: "Wiki", redirect_uri: [CALLBACK, "https://wiki.example.org/other"], scope: ["openid", "profile", "email", "phone", "groups"] },
  });
  expect(res.status, res.text).toBe(201);
  app = res.json;
});

afterAll(async () => {
  for (const c of children) c.kill("SIGTERM");
  await base?.close();
});

describe("discovery and keys", () => {
  it("serves defguard's paths with RS256 and ES256 keys", async () => {
    const d = await (await fetch(`${base.url}/.well-known/openid-configuration`)).json();
    expect(d.issuer).toBe(base.url);
    expect(d.authorization_endpoint).toBe(`${base.url}/api/v1/oauth/authorize`);
    expect(d.token_endpoint).toBe(`${base.url}/api/v1/oauth/token`);
    expect(d.userinfo_endpoint).toBe(`${base.url}/api/v1/oauth/userinfo`);
    expect(d.jwks_uri).toBe(`${base.url}/api/v1/oauth/discovery/keys`);
    expect(d.token_endpoint_auth_methods_supported).toEqual(expect.arrayContaining(["client_secret_basic", "client_secret_post"]));
    expect(d.code_challenge_methods_supported).toEqual(["S256"]);
    const jwks = await (await fetch(d.jwks_uri)).json();
    expect(jwks.keys.map((k: { alg: string }) => k.alg).sort()).toEqual(["ES256", "RS256"]);
    for (const k of jwks.keys) expect(k.d).toBeUndefined();
    const stored = await query<{ private_jwk: string }>("select private_jwk from oidc_keys");
    for (const r of stored) expect(r.private_jwk).toMatch(/^v1:/);
  });
});

describe("authorization code flow", () => {
  it("unauthenticated: the browser goes to the console's login and comes back to the interaction", async () => {
    const config = await rp();
    const p = await authRequest(config);
    const browser: Browser = {};
    const step = await browse(browser, p.url.toString());
    expect(step.location).toMatch(/\/login\?r=%2Fapi%2Fv1%2Foauth%2Finteraction%2F/);
    const back = decodeURIComponent(new URL(step.location!).searchParams.get("r")!);
    // Signed in (the login page sends the browser to `r`): the consent page.
    Object.assign(browser, signedIn(alice));
    const consent = await browse(browser, new URL(back, base.url).toString());
    expect(consent.status).toBe(200);
    expect(consent.text).toContain("Wiki");
    expect(consent.text).toContain("Your e-mail address");
    expect(consent.text).toContain('data-scope="groups"');
    // The form posts to the console and ends at the app: the CSP allows exactly that origin.
    expect(consent.headers.get("content-security-policy")).toContain("form-action 'self' https://wiki.example.org");
    expect(consent.headers.get("content-security-policy")).toMatch(/script-src 'self' 'nonce-/);
    const done = await decide(browser, consent, "allow");
    const callback = new URL(done.location!);
    expect(callback.searchParams.get("state")).toBe(p.state);
    const tokens = await oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: p.verifier, expectedState: p.state, expectedNonce: p.nonce });
    const claims = tokens.claims()!;
    expect(claims.iss).toBe(base.url);
    expect(claims.aud).toBe(app.client_id);
    expect(claims.nonce).toBe(p.nonce);
    expect(claims.sub).toBe(String(aliceId));
    const header = JSON.parse(Buffer.from(tokens.id_token!.split(".")[0], "base64url").toString());
    expect(header.alg).toBe("RS256");
    const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    expect(info).toMatchObject({
      sub: String(aliceId),
      name: "Alice Liddell",
      given_name: "Alice",
      family_name: "Liddell",
      preferred_username: "alice",
      email: "alice@example.org",
      email_verified: true,
      phone_number: "+48123456789",
      groups: ["wiki-editors"],
    });
    // Refresh with rotation: the new refresh token works, the old one no longer.
    expect(tokens.refresh_token).toBeTruthy();
    const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.access_token).toBeTruthy();
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
    // Consent and sign-in are in the activity log.
    const events = await query<{ event: string }>("select event from activity_log where user_id = $1", [aliceId]);
    expect(events.map((e) => e.event)).toEqual(expect.arrayContaining(["open_id_app_consent_given", "user_login_open_id_app"]));
  });

  it("consent is remembered per user and app; prompt=consent asks again", async () => {
    const config = await rp({ post: true });
    const p = await authRequest(config);
    const step = await browse(signedIn(alice), p.url.toString());
    expect(step.location, step.text).toMatch(/^https:\/\/wiki\.example\.org\/callback\?code=/);
    const tokens = await oidc.authorizationCodeGrant(config, new URL(step.location!), { pkceCodeVerifier: p.verifier, expectedState: p.state, expectedNonce: p.nonce });
    expect(tokens.claims()!.sub).toBe(String(aliceId));
    const again = await authRequest(config, { prompt: "consent" });
    const page = await browse(signedIn(alice), again.url.toString());
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="decision" value="allow"');
  });

  it("response_mode=form_post: an auto-posting page allowed by the CSP (script hash, form-action to the app)", async () => {
    const config = await rp();
    const p = await authRequest(config, { response_mode: "form_post" });
    const page = await browse(signedIn(alice), p.url.toString());
    expect(page.status).toBe(200);
    expect(page.text).toContain(`<form method="post" action="${CALLBACK}">`);
    expect(page.text).toMatch(/name="code" value="[^"]+"/);
    const csp = page.headers.get("content-security-policy")!;
    expect(csp).toContain("form-action 'self' https://wiki.example.org");
    const script = /<script>([^<]*)<\/script>/.exec(page.text)![1];
    const { createHash } = await import("node:crypto");
    expect(csp).toContain(`'sha256-${createHash("sha256").update(script).digest("base64")}'`);
  });

  it("deny on the consent page: error=access_denied at the app", async () => {
    const config = await rp();
    const p = await authRequest(config, { prompt: "consent" });
    const browser = signedIn(alice);
    const page = await browse(browser, p.url.toString());
    const out = await decide(browser, page, "deny");
    const cb = new URL(out.location!);
    expect(cb.searchParams.get("error")).toBe("access_denied");
    expect(cb.searchParams.get("state")).toBe(p.state);
    expect(cb.searchParams.get("code")).toBeNull();
  });

  it("a consent form without the anti-forgery token is refused", async () => {
    const config = await rp();
    const p = await authRequest(config, { prompt: "consent" });
    const browser = signedIn(alice);
    const page = await browse(browser, p.url.toString());
    const action = /action="([^"]+)"/.exec(page.text)![1];
    const res = await browse(browser, new URL(action, base.url).toString(), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "decision=allow",
    });
    expect(res.status).toBe(403);
    expect(res.location).toBeUndefined();
  });
});

describe("refusals", () => {
  it("PKCE mismatch: invalid_grant", async () => {
    const config = await rp();
    const c = await codeFor(config, alice);
    await expect(
      oidc.authorizationCodeGrant(config, c.callback, { pkceCodeVerifier: oidc.randomPKCECodeVerifier(), expectedState: c.state, expectedNonce: c.nonce }),
    ).rejects.toMatchObject({ error: "invalid_grant" });
  });

  it("code reuse: the second use fails and revokes the tokens of the first", async () => {
    const config = await rp();
    const c = await codeFor(config, alice);
    const first = await oidc.authorizationCodeGrant(config, c.callback, { pkceCodeVerifier: c.verifier, expectedState: c.state, expectedNonce: c.nonce });
    await oidc.fetchUserInfo(config, first.access_token, first.claims()!.sub);
    await expect(
      oidc.authorizationCodeGrant(config, c.callback, { pkceCodeVerifier: c.verifier, expectedState: c.state, expectedNonce: c.nonce }),
    ).rejects.toMatchObject({ error: "invalid_grant" });
    await expect(oidc.fetchUserInfo(config, first.access_token, first.claims()!.sub)).rejects.toThrow();
    await expect(oidc.refreshTokenGrant(config, first.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
  });

  it("an unknown redirect URI gets an error page, never a redirect to it", async () => {
    const config = await rp();
    const p = await authRequest(config, { redirect_uri: "https://evil.example.net/cb" });
    const res = await browse(signedIn(alice), p.url.toString());
    expect(res.status).toBe(400);
    expect(res.location).toBeUndefined();
    expect(res.headers.get("content-type")).toMatch(/text\/html/);
    expect(res.text).toContain("redirect_uri");
    expect(res.text).not.toContain("<script");
  });

  it("malformed requests with a valid redirect URI answer RFC 6749 errors to the app", async () => {
    const config = await rp();
    const p = await authRequest(config, { response_type: "token" });
    const res = await browse(signedIn(alice), p.url.toString());
    // response_type=token would answer in the fragment; the error goes there.
    expect(new URLSearchParams(new URL(res.location!).hash.slice(1)).get("error")).toBe("unsupported_response_type");
    expect(new URL(res.location!).origin).toBe("https://wiki.example.org");
    const q = await authRequest(config, { scope: "profile" });
    const res2 = await browse(signedIn(alice), q.url.toString());
    expect(new URL(res2.location!).searchParams.get("error")).toBe("invalid_request");
    const unknown = await fetch(`${base.url}/api/v1/oauth/authorize?client_id=nope&response_type=code&redirect_uri=${encodeURIComponent(CALLBACK)}`, { redirect: "manual" });
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get("location")).toBeNull();
  });

  it("expired code: invalid_grant", async () => {
    const config = await rp();
    const c = await codeFor(config, alice);
    await query("update oidc_payloads set expires_at = now() - interval '1 second' where model = 'AuthorizationCode'");
    await expect(
      oidc.authorizationCodeGrant(config, c.callback, { pkceCodeVerifier: c.verifier, expectedState: c.state, expectedNonce: c.nonce }),
    ).rejects.toMatchObject({ error: "invalid_grant" });
  });

  it("a disabled app is refused at the authorization endpoint with a clear page, and at the token endpoint", async () => {
    const config = await rp();
    const c = await codeFor(config, alice);
    const off = await call(appStatePost, { method: "POST", jar: admin, params: { client_id: app.client_id }, body: { enabled: false } });
    expect(off.status, off.text).toBe(200);
    try {
      const p = await authRequest(config);
      const res = await browse(signedIn(alice), p.url.toString());
      expect(res.status).toBe(400);
      expect(res.location).toBeUndefined();
      expect(res.text).toContain("is disabled");
      await expect(
        oidc.authorizationCodeGrant(config, c.callback, { pkceCodeVerifier: c.verifier, expectedState: c.state, expectedNonce: c.nonce }),
      ).rejects.toMatchObject({ status: 401, cause: [{ parameters: { error: "invalid_client" } }] });
    } finally {
      await call(appStatePost, { method: "POST", jar: admin, params: { client_id: app.client_id }, body: { enabled: true } });
    }
  });

  it("a disabled user gets no tokens and their refresh tokens stop working", async () => {
    const bob = await createUser({ username: "bob" });
    const bobJar = await signIn("bob");
    const config = await rp();
    const ok = await codeFor(config, bobJar);
    const tokens = await oidc.authorizationCodeGrant(config, ok.callback, { pkceCodeVerifier: ok.verifier, expectedState: ok.state, expectedNonce: ok.nonce });
    const pending = await codeFor(config, bobJar);
    await query("update users set is_active = false where id = $1", [bob.id]);
    await expect(
      oidc.authorizationCodeGrant(config, pending.callback, { pkceCodeVerifier: pending.verifier, expectedState: pending.state, expectedNonce: pending.nonce }),
    ).rejects.toMatchObject({ error: "invalid_grant" });
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
  });

  it("revoked consent: listed in UserInfo until revoked, then its tokens stop working and consent is asked again", async () => {
    const config = await rp();
    const c = await codeFor(config, alice);
    const tokens = await oidc.authorizationCodeGrant(config, c.callback, { pkceCodeVerifier: c.verifier, expectedState: c.state, expectedNonce: c.nonce });
    const before = await call(userGet, { jar: alice, params: { username: "alice" } });
    expect(before.json.user.authorized_apps).toEqual([{ oauth2client_id: app.id, oauth2client_name: "Wiki", user_id: aliceId }]);
    const del = await call(consentDelete, { method: "DELETE", jar: alice, params: { username: "alice", client_id: app.client_id } });
    expect(del.status, del.text).toBe(200);
    const after = await call(userGet, { jar: alice, params: { username: "alice" } });
    expect(after.json.user.authorized_apps).toEqual([]);
    await expect(oidc.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
    await expect(oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub)).rejects.toThrow();
    // defguard's web client names the app by its numeric id: that works too.
    const c2 = await codeFor(config, alice);
    await oidc.authorizationCodeGrant(config, c2.callback, { pkceCodeVerifier: c2.verifier, expectedState: c2.state, expectedNonce: c2.nonce });
    const byId = await call(consentDelete, { method: "DELETE", jar: alice, params: { username: "alice", client_id: String(app.id) } });
    expect(byId.status, byId.text).toBe(200);
    const twice = await call(consentDelete, { method: "DELETE", jar: alice, params: { username: "alice", client_id: app.client_id } });
    expect(twice.status).toBe(404);
    const events = await query<{ event: string }>("select event from activity_log where event = 'open_id_app_consent_revoked'");
    expect(events.length).toBe(2);
    // Another user cannot revoke alice's consent.
    await createUser({ username: "carol" });
    const other = await call(consentDelete, { method: "DELETE", jar: await signIn("carol"), params: { username: "alice", client_id: app.client_id } });
    expect(other.status).toBe(403);
  });
});

describe("defguard's web client: POST /api/v1/oauth/authorize?…&allow=", () => {
  async function decision(allow: string, opts: { xsrf?: boolean; redirect?: string; body?: string; contentType?: string } = {}) {
    const config = await rp();
    const p = await authRequest(config, opts.redirect ? { redirect_uri: opts.redirect } : {});
    const url = new URL(p.url);
    url.searchParams.set("allow", allow);
    const headers: Record<string, string> = { cookie: cookieHeader(signedIn(alice)) };
    if (opts.xsrf !== false) headers["x-xsrf-token"] = alice[XSRF_COOKIE];
    if (opts.contentType) headers["content-type"] = opts.contentType;
    const res = await fetch(url, { method: "POST", headers, body: opts.body, redirect: "manual" });
    return { res, p, config };
  }

  it("allow=true: 302 to the redirect URI with code and state; the code redeems", async () => {
    const { res, p, config } = await decision("true", { body: "", contentType: "application/x-www-form-urlencoded" });
    expect(res.status).toBe(302);
    const cb = new URL(res.headers.get("location")!);
    expect(cb.origin + cb.pathname).toBe(CALLBACK);
    expect(cb.searchParams.get("state")).toBe(p.state);
    const tokens = await oidc.authorizationCodeGrant(config, cb, { pkceCodeVerifier: p.verifier, expectedState: p.state, expectedNonce: p.nonce });
    expect(tokens.claims()!.sub).toBe(String(aliceId));
    expect(tokens.claims()!.nonce).toBe(p.nonce);
  });

  it("allow=false: error=access_denied", async () => {
    const { res, p } = await decision("false");
    expect(res.status).toBe(302);
    const cb = new URL(res.headers.get("location")!);
    expect(cb.searchParams.get("error")).toBe("access_denied");
    expect(cb.searchParams.get("state")).toBe(p.state);
  });

  it("refused without the anti-forgery header, and never redirected to an unknown redirect URI", async () => {
    const { res } = await decision("true", { xsrf: false });
    expect(res.status).toBe(403);
    const bad = await decision("true", { redirect: "https://evil.example.net/cb" });
    expect(bad.res.status).toBe(400);
    expect(bad.res.headers.get("location")).toBeNull();
  });
});

describe("more than one console process", () => {
  it("a second process redeems a code issued by the first", async () => {
    const child = spawn(process.execPath, ["--import", "./scripts/server-only-hook.mjs", "--import", "tsx", "tests/oidc-child.ts"], { env: { ...process.env }, stdio: ["ignore", "pipe", "pipe"] });
    children.push(child);
    const info = await new Promise<{ url: string }>((res, rej) => {
      let out = "";
      let err = "";
      child.stdout!.on("data", (b) => {
        out += b;
        const line = out.split("\n").find((l) => l.startsWith("{"));
        if (line) res(JSON.parse(line));
      });
      child.stderr!.on("data", (b) => (err += b));
      child.on("exit", (code) => rej(new Error(`child exited ${code}: ${err}`)));
    });
    const config = await rp();
    const c = await codeFor(config, alice);
    // The token endpoint of the other process (same issuer, same database).
    const other = new oidc.Configuration(
      {
        issuer: config.serverMetadata().issuer,
        jwks_uri: config.serverMetadata().jwks_uri,
        token_endpoint: `${info.url}/api/v1/oauth/token`,
        userinfo_endpoint: `${info.url}/api/v1/oauth/userinfo`,
      },
      app.client_id,
      undefined,
      oidc.ClientSecretBasic(app.client_secret),
    );
    oidc.allowInsecureRequests(other);
    oidc.enableNonRepudiationChecks(other);
    const tokens = await oidc.authorizationCodeGrant(other, c.callback, { pkceCodeVerifier: c.verifier, expectedState: c.state, expectedNonce: c.nonce });
    const info2 = await oidc.fetchUserInfo(other, tokens.access_token, tokens.claims()!.sub);
    expect(info2.preferred_username).toBe("alice");
  }, 60_000);
});

describe("signing key rotation", () => {
  it("new keys sign from then on; the old ones stay published", async () => {
    const before = await (await fetch(`${base.url}/api/v1/oauth/discovery/keys`)).json();
    const res = await call(rotatePost, { method: "POST", jar: admin });
    expect(res.status, res.text).toBe(200);
    const after = await (await fetch(`${base.url}/api/v1/oauth/discovery/keys`)).json();
    const kids = after.keys.map((k: { kid: string }) => k.kid);
    expect(kids).toHaveLength(4);
    for (const k of before.keys) expect(kids).toContain(k.kid);
    const config = await rp();
    const c = await codeFor(config, alice);
    const tokens = await oidc.authorizationCodeGrant(config, c.callback, { pkceCodeVerifier: c.verifier, expectedState: c.state, expectedNonce: c.nonce });
    const header = JSON.parse(Buffer.from(tokens.id_token!.split(".")[0], "base64url").toString());
    expect(res.json.kids).toContain(header.kid);
  });
});

describe("apps API", () => {
  it("add, edit, new secret (old tokens revoked), delete: defguard's OpenidClient shape and activity events", async () => {
    const created = await call(appsPost, { method: "POST", jar: admin, body: { name: "Grafana", redirect_uri: ["https://grafana.example.org/login/generic_oauth"], scope: ["openid", "email"] } });
    expect(created.status, created.text).toBe(201);
    const g = created.json;
    expect(Object.keys(g).sort()).toEqual(["client_id", "client_secret", "enabled", "id", "name", "redirect_uri", "scope"]);
    expect(g.enabled).toBe(true);
    const stored = await query<{ client_secret: string }>("select client_secret from oauth2_clients where client_id = $1", [g.client_id]);
    expect(stored[0].client_secret).not.toContain(g.client_secret);
    const listed = await call(appsGet, { jar: admin });
    expect(listed.json.map((a: { client_id: string }) => a.client_id)).toContain(g.client_id);
    expect((await call(appsGet, { jar: alice })).status).toBe(403);
    const edited = await call(appPut, { method: "PUT", jar: admin, params: { client_id: g.client_id }, body: { name: "Grafana 2", redirect_uri: ["https://grafana.example.org/cb"], scope: ["openid"], enabled: true } });
    expect(edited.json).toMatchObject({ name: "Grafana 2", redirect_uri: ["https://grafana.example.org/cb"], scope: ["openid"], client_secret: g.client_secret });
    // A new secret: the old one no longer authenticates, and tokens issued before are revoked.
    const before = await rp();
    const c = await codeFor(before, alice);
    const tokens = await oidc.authorizationCodeGrant(before, c.callback, { pkceCodeVerifier: c.verifier, expectedState: c.state, expectedNonce: c.nonce });
    const fresh = await call(secretPost, { method: "POST", jar: admin, params: { client_id: app.client_id } });
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.json.client_secret).not.toBe(app.client_secret);
    await expect(oidc.refreshTokenGrant(before, tokens.refresh_token!)).rejects.toMatchObject({ status: 401 });
    app = { ...app, client_secret: fresh.json.client_secret };
    const after = await rp();
    await expect(oidc.refreshTokenGrant(after, tokens.refresh_token!)).rejects.toMatchObject({ error: "invalid_grant" });
    const del = await call(appDelete, { method: "DELETE", jar: admin, params: { client_id: g.client_id } });
    expect(del.status).toBe(200);
    expect((await call(appGet, { jar: admin, params: { client_id: g.client_id } })).status).toBe(404);
    const events = (await query<{ event: string }>("select event from activity_log where event like 'open_id_app_%'")).map((e) => e.event);
    expect(events).toEqual(expect.arrayContaining(["open_id_app_added", "open_id_app_modified", "open_id_app_state_changed", "open_id_app_removed"]));
  });

  it("expired provider rows are removed by the retention job", async () => {
    await query("insert into oidc_payloads (model, id, payload, expires_at) values ('AccessToken', 'old', '{}', now() - interval '2 days'), ('AccessToken', 'live', '{}', now() + interval '1 hour')");
    expect(await pruneExpired()).toBe(1);
    expect((await query<{ id: string }>("select id from oidc_payloads where id in ('old', 'live')")).map((r) => r.id)).toEqual(["live"]);
  });
});

describe("apps API bad input", () => {
  it("a malformed app body gets 400 {msg} and changes nothing", async () => {
    const before = await query("select * from oauth2_clients order by id");
    for (const body of [
      { name: "", redirect_uri: [CALLBACK], scope: ["openid"] },
      { name: "X", redirect_uri: [], scope: ["openid"] },
      { name: "X", redirect_uri: ["javascript:alert(1)"], scope: ["openid"] },
      { name: "X", redirect_uri: [CALLBACK], scope: ["root"] },
      { name: "X", redirect_uri: "https://a.example/cb", scope: ["openid"] },
    ]) {
      const res = await call(appPut, { method: "PUT", jar: admin, params: { client_id: app.client_id }, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.msg).toBeTruthy();
      const created = await call(appsPost, { method: "POST", jar: admin, body });
      expect(created.status).toBe(400);
    }
    expect(await query("select * from oauth2_clients order by id")).toEqual(before);
  });
});


describe("behind a TLS-terminating proxy", () => {
  it("an https DEFGUARD_URL gives Secure cookies and https endpoints, whatever forwarded headers the client sends", async () => {
    const { resetProvider } = await import("@/lib/oidc/provider");
    const saved = process.env.DEFGUARD_URL;
    process.env.DEFGUARD_URL = "https://console.example.org";
    resetProvider();
    try {
      const d = await (await fetch(`${base.url}/.well-known/openid-configuration`, { headers: { "x-forwarded-host": "evil.example.net", "x-forwarded-proto": "http" } })).json();
      expect(d.issuer).toBe("https://console.example.org");
      expect(d.token_endpoint).toBe("https://console.example.org/api/v1/oauth/token");
      const q = new URLSearchParams({
        client_id: app.client_id,
        response_type: "code",
        redirect_uri: CALLBACK,
        scope: "openid",
        state: "s",
        code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
        code_challenge_method: "S256",
      });
      const res = await fetch(`${base.url}/api/v1/oauth/authorize?${q}`, { redirect: "manual", headers: { cookie: cookieHeader(signedIn(alice)) } });
      expect(res.status).toBe(303);
      const cookies = res.headers.getSetCookie();
      expect(cookies.length).toBeGreaterThan(0);
      for (const c of cookies) expect(c.toLowerCase()).toContain("; secure");
      expect(res.headers.get("location")).toMatch(/^\/api\/v1\/oauth\/interaction\//);
    } finally {
      process.env.DEFGUARD_URL = saved;
      resetProvider();
    }
  });
});
