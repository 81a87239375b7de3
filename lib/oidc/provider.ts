import "server-only";
import { describeError } from "../log-errors";
import { transaction } from "../events";
/**
 * The OpenID Connect provider (oidc-provider) at defguard's paths. All its state lives in
 * PostgreSQL (adapter.ts, keys.ts), so any console process continues a flow another started.
 */
// Types only: the package is loaded on the first OpenID request (it is the slowest import of
// the server's start-up, and a console without OpenID apps never needs it).
import type Provider from "oidc-provider";
import type { Configuration, KoaContextWithOIDC } from "oidc-provider";

type InteractionPolicy = (typeof import("oidc-provider"))["interactionPolicy"];
import { getPool } from "../db";
import { hmac } from "../crypto";
import { publicUrl, secret } from "../config";
import { findSession, SESSION_COOKIE, type Session } from "../auth/session";
import { parseCookies } from "../cookies";
import { recordActivity } from "../activity/service";
import { getDb } from "../db";
import { PgAdapter } from "./adapter";
import { ensureKeys, keysVersion, loadKeys, TOKEN_TTL_SECONDS } from "./keys";
import { errorPage } from "./pages";

import { DISCOVERY_PATH, INTERACTION_PREFIX, isProviderPath, OIDC_PATHS } from "./paths";
export { DISCOVERY_PATH, INTERACTION_PREFIX, isProviderPath, OIDC_PATHS };

/** A console session that may sign in to apps: second factor done, MFA set up where required. */
export function usableSession(s: Session | null): s is Session {
  return !!s && s.user.isActive && s.state === "authenticated" && !(s.policy.requireMfa && !s.user.mfaEnabled);
}

export async function consoleSession(cookieHeader: string | null | undefined): Promise<Session | null> {
  const token = parseCookies(cookieHeader ?? null)[SESSION_COOKIE];
  const s = token ? await findSession(token) : null;
  return usableSession(s) ? s : null;
}

interface AccountRow {
  id: number;
  username: string;
  first_name: string;
  last_name: string;
  email: string;
  phone: string | null;
  is_active: boolean;
  groups: string[];
}

async function findAccount(_ctx: unknown, id: string) {
  if (!/^\d{1,10}$/.test(id)) return undefined;
  const { rows } = await getPool().query<AccountRow>(
    `select u.id, u.username, u.first_name, u.last_name, u.email, u.phone, u.is_active,
            coalesce((select array_agg(g.name order by g.name) from group_users gu join groups g on g.id = gu.group_id where gu.user_id = u.id), '{}') "groups"
     from users u where u.id = $1`,
    [Number(id)],
  );
  const u = rows[0];
  // A disabled user gets no tokens, and their refresh tokens stop working.
  if (!u || !u.is_active) return undefined;
  return {
    accountId: id,
    async claims() {
      return {
        sub: id,
        name: `${u.first_name} ${u.last_name}`.trim() || u.username,
        given_name: u.first_name,
        family_name: u.last_name,
        preferred_username: u.username,
        email: u.email,
        email_verified: true,
        phone_number: u.phone ?? undefined,
        groups: u.groups,
      };
    },
  };
}

function configuration(interactionPolicy: InteractionPolicy, keys: Configuration["jwks"]): Configuration {
  const policy = interactionPolicy.base();
  // The provider's own login session must belong to the user signed in to the console now.
  policy.get("login")!.checks.add(
    new interactionPolicy.Check("console_session", "the console session is missing or belongs to someone else", async (ctx) => {
      const s = await consoleSession(ctx.get("cookie"));
      return !s || String(s.user.id) !== ctx.oidc.session?.accountId ? interactionPolicy.Check.REQUEST_PROMPT : interactionPolicy.Check.NO_NEED_TO_PROMPT;
    }),
  );
  const insecure = process.env.DEFGUARD_COOKIE_INSECURE === "1" || publicUrl().startsWith("http:");
  return {
    adapter: PgAdapter as never,
    clients: [],
    jwks: keys,
    findAccount: findAccount as never,
    cookies: {
      keys: [hmac(secret("secretKey"), "oidc-provider cookies")],
      long: { signed: true, secure: !insecure, sameSite: "lax" },
      short: { signed: true, secure: !insecure, sameSite: "lax" },
    },
    scopes: ["openid", "offline_access", "profile", "email", "phone", "groups"],
    claims: {
      openid: ["sub"],
      profile: ["name", "given_name", "family_name", "preferred_username"],
      email: ["email", "email_verified"],
      phone: ["phone_number"],
      groups: ["groups"],
    },
    routes: OIDC_PATHS,
    interactions: { policy, url: (_ctx, interaction) => `${INTERACTION_PREFIX}${interaction.uid}` },
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      rpInitiatedLogout: { enabled: false },
    },
    // Public clients must use PKCE (S256 is the only method oidc-provider accepts).
    pkce: { required: (_ctx, client) => client.clientAuthMethod === "none" },
    // Every app may refresh (defguard's apps rarely ask for offline_access); a refresh token works once.
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed("refresh_token"),
    rotateRefreshToken: () => true,
    expiresWithSession: async () => false,
    // Consent is remembered per user and app in oauth2_consents (http.ts turns it into a grant).
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      return rememberedGrant(ctx);
    },
    ttl: {
      AccessToken: TOKEN_TTL_SECONDS,
      IdToken: TOKEN_TTL_SECONDS,
      AuthorizationCode: 600,
      RefreshToken: 30 * 86400,
      Grant: 365 * 86400,
      Interaction: 3600,
      Session: 14 * 86400,
    },
    enabledJWA: { idTokenSigningAlgValues: ["RS256", "ES256"], userinfoSigningAlgValues: ["RS256", "ES256"] },
    renderError: async (ctx, out) => {
      ctx.type = "html";
      ctx.body = errorPage(ctx.get("accept-language"), String(out.error ?? "server_error"), String(out.error_description ?? ""));
    },
  };
}

/** A grant from consent remembered in oauth2_consents (not when `prompt=consent` asks again). */
async function rememberedGrant(ctx: KoaContextWithOIDC) {
  const accountId = ctx.oidc.session?.accountId;
  const clientId = ctx.oidc.client?.clientId;
  if (!accountId || !clientId || ctx.oidc.prompts.has("consent")) return undefined;
  const { rows } = await getPool().query<{ scope: string[] }>(
    `select k.scope from oauth2_consents k join oauth2_clients c on c.id = k.client_id where k.user_id = $1 and c.client_id = $2`,
    [Number(accountId), clientId],
  );
  if (!rows[0]) return undefined;
  const grant = new ctx.oidc.provider.Grant({ accountId, clientId });
  grant.addOIDCScope(["offline_access", ...rows[0].scope].join(" "));
  grant.addOIDCClaims(["sub"]);
  await grant.save();
  return grant;
}

interface Holder {
  provider: Provider;
  version: string;
  checkedAt: number;
}
const g = globalThis as unknown as { __defguardOidc?: Promise<Holder> };
const KEY_CHECK_MS = 5000;

async function build(): Promise<Holder> {
  await ensureKeys();
  const { keys, version } = await loadKeys();
  const oidc = await import("oidc-provider");
  const provider = new oidc.default(publicUrl(), configuration(oidc.interactionPolicy, { keys: keys as never }));
  provider.use(formPostCsp);
  // http.ts overwrites the forwarded headers with trusted values before every provider request.
  provider.proxy = true;
  provider.on("authorization.success", (ctx: KoaContextWithOIDC) => {
    const accountId = ctx.oidc.session?.accountId;
    if (accountId) void recordAppSignIn(Number(accountId), ctx.oidc.client?.clientName ?? ctx.oidc.client?.clientId ?? "", ctx.ip);
  });
  return { provider, version, checkedAt: Date.now() };
}

/**
 * response_mode=form_post under the console's CSP: oidc-provider already allows its page's one
 * script by hash; the form must also be allowed to post to the app's origin (the redirect URI
 * the provider checked, which is the form's action).
 */
async function formPostCsp(ctx: KoaContextWithOIDC, next: () => Promise<void>) {
  await next();
  if (typeof ctx.body !== "string" || !ctx.response.is("html") || !ctx.body.includes("<title>Submitting Callback</title>")) return;
  const action = /<form method="post" action="([^"]+)"/.exec(ctx.body)?.[1];
  const csp = ctx.response.get("content-security-policy");
  if (!action || !csp) return;
  let origin: string;
  try {
    origin = new URL(action.replace(/&amp;/g, "&")).origin;
  } catch {
    return;
  }
  ctx.set("content-security-policy", csp.replace(/form-action ([^;]*)/, `form-action $1 ${origin}`));
}

/** "Signed in to an OpenID app" in the activity log. */
export async function recordAppSignIn(userId: number, app: string, ip: string | null): Promise<void> {
  try {
    const { rows } = await getPool().query<{ username: string }>(`select username from users where id = $1`, [userId]);
    if (!rows[0]) return;
    const username = rows[0].username;
    await transaction((tx) => recordActivity(tx, { userId, username, ip }, { event: "user_login_open_id_app", description: `Signed in to OpenID app ${app}` }));
  } catch (err) {
    console.error("[oidc] activity record failed:", describeError(err));
  }
}

/** The provider for the keys currently published (rebuilt within seconds after a rotation on any process). */
export async function getProvider(): Promise<Provider> {
  let h = g.__defguardOidc ? await g.__defguardOidc.catch(() => undefined) : undefined;
  if (!h) {
    g.__defguardOidc = build();
    return (await g.__defguardOidc).provider;
  }
  if (Date.now() - h.checkedAt > KEY_CHECK_MS) {
    h.checkedAt = Date.now();
    if ((await keysVersion()) !== h.version) {
      g.__defguardOidc = build();
      h = await g.__defguardOidc;
    }
  }
  return h.provider;
}

/** After a rotation in this process: use the new keys at once. */
export function resetProvider(): void {
  g.__defguardOidc = undefined;
}
