import "server-only";
/**
 * HTTP entry of the OpenID provider, called by server.ts before Next.js: the provider's
 * endpoints, the interaction step (console sign-in, consent page) and defguard's consent
 * decision `POST /api/v1/oauth/authorize?<request>&allow=true|false`.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { disabledModules, SESSION_COOKIE, xsrfTokenFor, XSRF_HEADER, type Session } from "../auth/session";
import { MODULE_DISABLED_MSG } from "../auth/modules";
import { safeEqual } from "../crypto";
import { parseCookies } from "../cookies";
import { LOCALE_COOKIE } from "../i18n/negotiate";
import { publicUrl } from "../config";
import { findClientRow, giveConsent } from "./clients";
import { consentPage, disabledAppPage, errorPage, moduleDisabledPage } from "./pages";
import { consoleSession, DISCOVERY_PATH, getProvider, INTERACTION_PREFIX, isProviderPath, OIDC_PATHS, recordAppSignIn } from "./provider";

const SUPPORTED = new Set(["openid", "profile", "email", "phone", "groups"]);

function clientIp(req: IncomingMessage): string | null {
  const v = req.headers["x-defguard-client-ip"];
  return typeof v === "string" ? v : (req.socket.remoteAddress ?? null);
}

function html(res: ServerResponse, status: number, body: string) {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }).end(body);
}

function jsonAnswer(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(body));
}

function redirect(res: ServerResponse, location: string, status = 302) {
  res.writeHead(status, { location, "cache-control": "no-store" }).end();
}

async function readBody(req: IncomingMessage, limit = 8192): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > limit) throw new Error("body too large");
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** The scopes of a request the app may have (openid always first), as granted on consent. */
export function grantedScopes(requested: string, allowed: string[]): string[] {
  const want = new Set(requested.split(" ").filter(Boolean));
  return ["openid", ...allowed.filter((s) => s !== "openid" && SUPPORTED.has(s) && want.has(s))];
}

/**
 * The provider (Koa) learns scheme, host and client address from forwarded headers, which we
 * set ourselves from DEFGUARD_URL and the address server.ts resolved: behind a TLS-terminating
 * proxy its cookies stay Secure, and no client can choose these values.
 */
function forwarded(req: IncomingMessage) {
  const pub = new URL(publicUrl());
  req.headers["x-forwarded-proto"] = pub.protocol.replace(":", "");
  req.headers["x-forwarded-host"] = pub.host;
  const ip = clientIp(req);
  if (ip) req.headers["x-forwarded-for"] = ip;
  else delete req.headers["x-forwarded-for"];
}

/** Endpoints a browser is sent to (answered with a page); the others are called by programs (JSON). */
const BROWSER_PATHS = [OIDC_PATHS.authorization, OIDC_PATHS.end_session];

/**
 * While the OpenID apps module is switched off in Settings → Global (read on every request, as
 * the REST routes read it, so switching it on again needs no restart) the provider refuses
 * everything, in OAuth's terms: 403 `{error: "access_denied", error_description}` from the
 * endpoints programs call (discovery and JWKS included: no app can start a sign-in), a page in
 * the browser's language from the ones browsers are sent to (authorization, logout, the
 * sign-in and consent steps), and the REST answer `{msg, code: "module_disabled"}` for defguard's
 * consent decision, which the console's own web client posts. Nothing is changed.
 */
async function refusedWhileOff(req: IncomingMessage, res: ServerResponse, path: string, method: string, url: URL): Promise<boolean> {
  if (!(await disabledModules()).includes("openid")) return false;
  req.resume();
  const msg = MODULE_DISABLED_MSG.openid;
  if (path === OIDC_PATHS.authorization && method === "POST" && url.searchParams.has("allow")) {
    jsonAnswer(res, 403, { msg, code: "module_disabled" });
  } else if (path.startsWith(INTERACTION_PREFIX) || BROWSER_PATHS.some((p) => path === p || path.startsWith(`${p}/`))) {
    html(res, 403, moduleDisabledPage(req.headers["accept-language"]));
  } else {
    if (path === DISCOVERY_PATH || path === OIDC_PATHS.jwks) res.setHeader("access-control-allow-origin", "*");
    jsonAnswer(res, 403, { error: "access_denied", error_description: msg });
  }
  return true;
}

/** Handles the request if it belongs to the OpenID provider; false lets Next.js have it. */
export async function handleOidc(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  const url = new URL(req.url ?? "/", "http://x");
  const path = url.pathname;
  const method = (req.method ?? "GET").toUpperCase();
  if (!path.startsWith(INTERACTION_PREFIX) && !isProviderPath(path)) return false;
  if (await refusedWhileOff(req, res, path, method, url)) return true;
  forwarded(req);
  if (path.startsWith(INTERACTION_PREFIX)) {
    await interaction(req, res, path.slice(INTERACTION_PREFIX.length), method);
    return true;
  }
  if (path === OIDC_PATHS.authorization && method === "POST" && url.searchParams.has("allow")) {
    await defguardDecision(req, res, url);
    return true;
  }
  if (path === OIDC_PATHS.authorization) {
    const clientId = url.searchParams.get("client_id");
    const row = clientId ? await findClientRow(clientId) : null;
    if (row && !row.enabled) {
      html(res, 400, disabledAppPage(req.headers["accept-language"], row.name));
      return true;
    }
  }
  const provider = await getProvider();
  if (path === DISCOVERY_PATH || path === OIDC_PATHS.jwks) res.setHeader("access-control-allow-origin", "*");
  await provider.callback()(req, res);
  return true;
}

async function interaction(req: IncomingMessage, res: ServerResponse, rest: string, method: string) {
  const provider = await getProvider();
  const lang = req.headers["accept-language"];
  let details;
  try {
    details = await provider.interactionDetails(req, res);
  } catch {
    html(res, 400, errorPage(lang, "invalid_request", "This sign-in request has expired or was opened in another browser. Start again from the application."));
    return;
  }
  if (rest !== details.uid) {
    html(res, 400, errorPage(lang, "invalid_request", "unknown sign-in request"));
    return;
  }
  const cookies = parseCookies(req.headers.cookie ?? null);
  const session = await consoleSession(req.headers.cookie);
  if (!session) {
    if (method !== "GET") return html(res, 401, errorPage(lang, "login_required", "Sign in to the console first."));
    return redirect(res, `/login?r=${encodeURIComponent(`${INTERACTION_PREFIX}${details.uid}`)}`, 303);
  }
  const accountId = String(session.user.id);
  if (details.prompt.name === "login") {
    if (method !== "GET") return html(res, 400, errorPage(lang, "invalid_request", "unexpected sign-in step"));
    await provider.interactionFinished(req, res, { login: { accountId } }, { mergeWithLastSubmission: false });
    return;
  }
  if (details.prompt.name !== "consent" || details.session?.accountId !== accountId) {
    return html(res, 400, errorPage(lang, "invalid_request", "this sign-in request belongs to another session"));
  }
  const params = details.params as Record<string, string | undefined>;
  const row = params.client_id ? await findClientRow(params.client_id) : null;
  if (!row || !row.enabled) return html(res, 400, errorPage(lang, "unauthorized_client", "the application is unknown or disabled"));
  const scopes = grantedScopes(params.scope ?? "", row.scope);
  const xsrf = xsrfTokenFor(cookies[SESSION_COOKIE]);

  if (method === "GET") {
    const redirectOrigin = new URL(params.redirect_uri!).origin;
    // The form's answer redirects (through the provider) to the app: allow exactly its origin.
    const csp = res.getHeader("content-security-policy");
    if (typeof csp === "string") res.setHeader("content-security-policy", csp.replace("form-action 'self'", `form-action 'self' ${redirectOrigin}`));
    const page = consentPage(lang, cookies[LOCALE_COOKIE], {
      appName: row.name,
      username: session.user.username,
      scopes,
      action: `${INTERACTION_PREFIX}${details.uid}`,
      xsrf,
      redirectOrigin,
    });
    return html(res, 200, page);
  }
  if (method !== "POST") return html(res, 405, errorPage(lang, "invalid_request", "method not allowed"));
  let form: URLSearchParams;
  try {
    form = new URLSearchParams(await readBody(req));
  } catch {
    return html(res, 400, errorPage(lang, "invalid_request", "request body too large"));
  }
  if (!safeEqual(form.get("xsrf") ?? "", xsrf)) return html(res, 403, errorPage(lang, "invalid_request", "missing or invalid anti-forgery token"));
  const decision = form.get("decision");
  if (decision === "deny") {
    await provider.interactionFinished(req, res, { error: "access_denied", error_description: "the user denied access" }, { mergeWithLastSubmission: false });
    return;
  }
  if (decision !== "allow") return html(res, 400, errorPage(lang, "invalid_request", "decision: allow or deny"));
  await giveConsent(actor(session, req), session.user.id, row, scopes);
  const grant = details.grantId ? await provider.Grant.find(details.grantId) : new provider.Grant({ accountId, clientId: row.clientId });
  if (!grant) return html(res, 400, errorPage(lang, "invalid_request", "the grant of this request has expired"));
  grant.addOIDCScope(["offline_access", ...scopes].join(" "));
  const missing = (details.prompt.details as { missingOIDCClaims?: string[] }).missingOIDCClaims;
  if (missing?.length) grant.addOIDCClaims(missing);
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

function actor(s: Session, req: IncomingMessage) {
  return { userId: s.user.id, username: s.user.username, ip: clientIp(req) };
}

/**
 * Defguard's web client: the consent decision as POST /api/v1/oauth/authorize?<query>&allow=…
 * with the session cookie (and the anti-forgery header, as for every console POST). Answers 302
 * to the redirect URI with `code` and `state`, or `error=access_denied`.
 */
async function defguardDecision(req: IncomingMessage, res: ServerResponse, url: URL) {
  const lang = req.headers["accept-language"];
  const cookies = parseCookies(req.headers.cookie ?? null);
  const session = await consoleSession(req.headers.cookie);
  req.resume();
  if (!session) return jsonAnswer(res, 401, { msg: "not signed in" });
  const header = req.headers[XSRF_HEADER];
  if (typeof header !== "string" || !safeEqual(header, xsrfTokenFor(cookies[SESSION_COOKIE]))) {
    return jsonAnswer(res, 403, { msg: "missing or invalid X-XSRF-TOKEN header" });
  }
  const q = url.searchParams;
  const clientId = q.get("client_id");
  const row = clientId ? await findClientRow(clientId) : null;
  if (!row) return html(res, 400, errorPage(lang, "invalid_client", "unknown client_id"));
  if (!row.enabled) return html(res, 400, disabledAppPage(lang, row.name));
  const redirectUri = q.get("redirect_uri");
  if (!redirectUri || !row.redirectUri.includes(redirectUri)) {
    return html(res, 400, errorPage(lang, "invalid_redirect_uri", "redirect_uri does not match any of the application's redirect URLs"));
  }
  const provider = await getProvider();
  const back = (params: Record<string, string | undefined>) => {
    const target = new URL(redirectUri);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) target.searchParams.set(k, v);
    target.searchParams.set("iss", provider.issuer);
    return redirect(res, target.toString());
  };
  const state = q.get("state") ?? undefined;
  const fail = (error: string, description: string) => back({ error, error_description: description, state });
  if (q.get("response_type") !== "code") return fail("unsupported_response_type", "only response_type=code is supported");
  const requested = q.get("scope") ?? "";
  if (!requested.split(" ").includes("openid")) return fail("invalid_scope", "openid scope is required");
  const challenge = q.get("code_challenge") ?? undefined;
  const method = q.get("code_challenge_method") ?? undefined;
  if ((challenge || method) && (method !== "S256" || !challenge || !/^[A-Za-z0-9_-]{43,128}$/.test(challenge))) {
    return fail("invalid_request", "PKCE needs code_challenge with code_challenge_method=S256");
  }
  const allow = q.get("allow");
  if (allow !== "true") {
    if (allow !== "false") return fail("invalid_request", "allow must be true or false");
    return fail("access_denied", "the user denied access");
  }
  const scopes = grantedScopes(requested, row.scope);
  await giveConsent(actor(session, req), session.user.id, row, scopes);
  const client = await provider.Client.find(row.clientId);
  if (!client) return html(res, 400, errorPage(lang, "invalid_client", "unknown client_id"));
  const accountId = String(session.user.id);
  const grant = new provider.Grant({ accountId, clientId: row.clientId });
  grant.addOIDCScope(["offline_access", ...scopes].join(" "));
  const grantId = await grant.save();
  const code = new provider.AuthorizationCode({
    accountId,
    client,
    grantId,
    redirectUri,
    scope: ["offline_access", ...scopes].join(" "),
    nonce: q.get("nonce") ?? undefined,
    codeChallenge: challenge,
    codeChallengeMethod: challenge ? "S256" : undefined,
    authTime: Math.floor(Date.now() / 1000),
    claims: {},
  } as never);
  const value = await code.save();
  await recordAppSignIn(session.user.id, row.name, clientIp(req));
  return back({ code: value, state });
}
