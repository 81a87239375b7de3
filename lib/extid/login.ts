import "server-only";
/**
 * Sign-in through the external OpenID provider (authorization code flow with PKCE, state and
 * nonce), as defguard's `GET /openid/auth_info` and `POST /openid/callback`:
 *
 * 1. auth_info discovers the provider, builds the authorization URL and keeps state, nonce
 *    and the PKCE verifier in a short-lived cookie sealed with the instance key (AES-256-GCM:
 *    unreadable and unforgeable by the browser).
 * 2. The provider sends the browser to `<DEFGUARD_URL>/auth/callback?code&state`, whose page
 *    posts them to `/openid/callback`. The state must match the cookie's, the ID token's
 *    nonce the cookie's (openid-client checks both, and the token's signature, issuer and
 *    audience).
 * 3. The person is found by the provider's subject, else by e-mail (the subject is then
 *    linked), else created when "create account on first sign-in" is on. A user with MFA on
 *    gets a session that still waits for the second factor, exactly like a password sign-in.
 */
import * as oidc from "openid-client";
import { eq, sql } from "drizzle-orm";
import { getDb } from "../db";
import { userOpenidIdentities, users } from "../db/schema";
import { decryptSecret, encryptSecret } from "../crypto";
import { publicUrl } from "../config";
import { AppError, conflict, forbidden, notFound, unauthorized } from "../errors";
import { transaction } from "../events";
import { recordActivity } from "../activity/service";
import { createSession } from "../auth/session";
import { getSettings } from "../settings/service";
import { usernameSchema } from "../validation";
import { getProviderRow, providerSecrets, type ProviderRow } from "./service";
import { usernameFrom, usernameSource, type UsernameHandling } from "./username";
import { syncGroupsAtSignIn } from "./directory/sync";
import type { CallbackInput } from "./schema";

/** The cookie holding the sealed state, nonce and PKCE verifier between auth_info and callback. */
export const FLOW_COOKIE = "defguard_openid_flow";
export const FLOW_COOKIE_PATH = "/api/v1/openid";
export const FLOW_TTL_SECONDS = 600;

export const LOGIN_MSG = {
  notConfigured: "external OpenID sign-in is not configured",
  noFlow: "the sign-in with the external provider has expired or was started in another browser: start it again from the login page",
  stateMismatch: "the answer of the external provider does not belong to this sign-in (state mismatch): start it again from the login page",
  noEmail: "the external provider did not send an e-mail address: allow the email scope for this client at the provider",
  disabled: "user account is disabled",
  creationRefused: "there is no account for this person and creating accounts on first sign-in is turned off: ask an administrator to create the account first",
  badUsername: "no valid username could be made from the provider's claims",
} as const;

export interface RequestMeta {
  ip: string | null;
  userAgent: string | null;
}

/** Where the provider sends the browser back: the callback page of this console. */
export function callbackUrl(): string {
  return `${publicUrl()}/auth/callback`;
}

function isLoopback(url: URL): boolean {
  return ["localhost", "127.0.0.1", "[::1]", "::1"].includes(url.hostname);
}

const configCache = new Map<string, { at: number; config: Promise<oidc.Configuration> }>();
const CONFIG_TTL_MS = 5 * 60_000;

/**
 * The provider's discovered configuration, cached five minutes per provider version. Plain
 * http is accepted only for a loopback issuer (a provider on the same machine, as in tests).
 */
export async function providerConfig(row: ProviderRow): Promise<oidc.Configuration> {
  const key = `${row.id}:${row.updatedAt.getTime()}`;
  const hit = configCache.get(key);
  if (hit && Date.now() - hit.at < CONFIG_TTL_MS) return hit.config;
  const issuer = new URL(row.baseUrl);
  const secret = providerSecrets(row).clientSecret ?? undefined;
  const config = oidc
    .discovery(issuer, row.clientId, secret, secret ? oidc.ClientSecretPost(secret) : undefined, {
      ...(issuer.protocol === "http:" && isLoopback(issuer) ? { execute: [oidc.allowInsecureRequests] } : {}),
      timeout: 10,
    })
    .catch((err: unknown) => {
      configCache.delete(key);
      throw new AppError(503, `the external OpenID provider at ${row.baseUrl} could not be reached or did not describe itself: ${errorText(err)}`);
    });
  configCache.clear();
  configCache.set(key, { at: Date.now(), config });
  return config;
}

export function errorText(err: unknown): string {
  // openid-client wraps oauth4webapi's errors; the innermost ones say which check failed and
  // name the claim that did not match (nonce, iss, aud, ...).
  const parts: string[] = [];
  let claim: string | null = null;
  for (let e = err as { message?: string; code?: string; cause?: unknown; claim?: unknown } | undefined, depth = 0; e && typeof e === "object" && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.claim === "string") claim = e.claim;
    const text = e.message ?? e.code;
    if (text && !parts.includes(text)) parts.push(text);
  }
  if (claim) parts.push(`the ID token's "${claim}" claim does not match this sign-in`);
  return parts.join(": ") || String(err);
}

interface Flow {
  state: string;
  nonce: string;
  verifier: string;
  /** Expiry, ms since epoch. */
  exp: number;
}

/** GET /openid/auth_info: the authorization URL, the button's label and the sealed flow cookie value. */
export async function authInfo(): Promise<{ body: { url: string; button_display_name: string | null }; flow: string }> {
  const row = await getProviderRow();
  if (!row) throw notFound(LOGIN_MSG.notConfigured);
  const config = await providerConfig(row);
  const flow: Flow = {
    state: oidc.randomState(),
    nonce: oidc.randomNonce(),
    verifier: oidc.randomPKCECodeVerifier(),
    exp: Date.now() + FLOW_TTL_SECONDS * 1000,
  };
  const params: Record<string, string> = {
    redirect_uri: callbackUrl(),
    scope: row.scopes.join(" "),
    state: flow.state,
    nonce: flow.nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
    code_challenge_method: "S256",
  };
  // Google lets the person pick one of their accounts (others, e.g. JumpCloud, refuse the prompt).
  if (row.name === "Google") params.prompt = "select_account";
  const url = oidc.buildAuthorizationUrl(config, params);
  return { body: { url: url.href, button_display_name: row.displayName }, flow: encryptSecret(JSON.stringify(flow)) };
}

function openFlow(sealed: string | undefined): Flow {
  if (!sealed) throw new AppError(400, LOGIN_MSG.noFlow);
  try {
    const flow = JSON.parse(decryptSecret(sealed)) as Flow;
    if (typeof flow.state !== "string" || typeof flow.nonce !== "string" || !(flow.exp > Date.now())) throw new Error("expired");
    return flow;
  } catch {
    throw new AppError(400, LOGIN_MSG.noFlow);
  }
}

export type CallbackResult =
  | { kind: "signed_in"; userId: number; token: string; mfaSetupRequired: boolean; created: boolean }
  | {
      kind: "mfa_required";
      userId: number;
      token: string;
      mfa: { mfa_method: string; totp_available: boolean; webauthn_available: boolean; email_available: boolean };
    };

type Claims = Record<string, unknown> & { sub: string };

/** POST /openid/callback: verify the provider's answer, find or create the account, open a session. */
export async function openidCallback(input: CallbackInput, sealedFlow: string | undefined, meta: RequestMeta): Promise<CallbackResult> {
  const flow = openFlow(sealedFlow);
  if (input.state !== flow.state) throw new AppError(400, LOGIN_MSG.stateMismatch);
  const row = await getProviderRow();
  if (!row) throw notFound(LOGIN_MSG.notConfigured);
  const config = await providerConfig(row);

  const current = new URL(callbackUrl());
  current.searchParams.set("code", input.code);
  current.searchParams.set("state", input.state);
  // Clients that post only {code, state} (defguard's page): the one configured issuer is the
  // only one this flow can have come from.
  current.searchParams.set("iss", input.iss ?? config.serverMetadata().issuer);

  let claims: Claims;
  let accessToken: string;
  try {
    const tokens = await oidc.authorizationCodeGrant(config, current, {
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      pkceCodeVerifier: flow.verifier,
      idTokenExpected: true,
    });
    const c = tokens.claims();
    if (!c) throw new Error("the provider sent no ID token");
    claims = c as Claims;
    accessToken = tokens.access_token;
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw unauthorized(`the external provider's answer was refused: ${errorText(err)}`);
  }

  // Names and e-mail may be only at the userinfo endpoint (some providers keep ID tokens small).
  if (typeof claims.email !== "string" || typeof claims.given_name !== "string" || typeof claims.family_name !== "string") {
    try {
      const info = await oidc.fetchUserInfo(config, accessToken, claims.sub);
      claims = { ...info, ...claims } as Claims;
    } catch {
      // What the ID token holds has to do.
    }
  }
  const email = typeof claims.email === "string" ? claims.email.trim() : "";
  if (!email) throw new AppError(400, LOGIN_MSG.noEmail);

  const s = await getSettings();
  const { userId, created } = await findOrCreateUser(row, claims, email, s.openidCreateAccount, s.openidUsernameHandling as UsernameHandling, meta);
  if (!userId) throw forbidden(LOGIN_MSG.creationRefused);
  const [user] = await getDb().select().from(users).where(eq(users.id, userId));
  const actor = { userId: user.id, username: user.username, ip: meta.ip };
  if (!user.isActive) {
    await transaction((tx) => recordActivity(tx, actor, { event: "user_login_failed", description: `Account is disabled (external OpenID provider ${row.name})` }));
    throw forbidden(LOGIN_MSG.disabled);
  }
  // Directory sync covering groups: this person's memberships follow the directory first (so
  // the session starts with the right groups, admin included). A directory that cannot be read
  // does not stop the sign-in; the periodic sync catches up.
  try {
    await syncGroupsAtSignIn(user.id);
  } catch (err) {
    console.error(`[directory-sync] group sync at the sign-in of ${user.username} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (user.mfaEnabled) {
    const token = await createSession(getDb(), user.id, "password_verified", meta);
    const keys = await getDb().execute(sql`select 1 from webauthn_credentials where user_id = ${user.id} limit 1`);
    return {
      kind: "mfa_required",
      userId: user.id,
      token,
      mfa: { mfa_method: user.mfaMethod, totp_available: user.totpEnabled, webauthn_available: keys.rows.length > 0, email_available: user.emailMfaEnabled },
    };
  }
  const token = await transaction(async (tx) => {
    const t = await createSession(tx, user.id, "authenticated", meta);
    await recordActivity(tx, actor, { event: "user_login", description: `Signed in through the external OpenID provider ${row.name}` });
    return t;
  });
  return { kind: "signed_in", userId: user.id, token, mfaSetupRequired: s.requireMfa && !user.mfaEnabled, created };
}

async function findOrCreateUser(
  row: ProviderRow,
  claims: Claims,
  email: string,
  createAccount: boolean,
  handling: UsernameHandling,
  meta: RequestMeta,
): Promise<{ userId: number; created: boolean }> {
  return transaction(async (tx, emit) => {
    // One sign-in at a time per subject: two tabs finishing together create one account.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${"openid:" + claims.sub}))`);
    const [bySub] = await tx.select({ userId: userOpenidIdentities.userId }).from(userOpenidIdentities).where(eq(userOpenidIdentities.sub, claims.sub));
    if (bySub) return { userId: bySub.userId, created: false };
    const [byEmail] = await tx.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = ${email.toLowerCase()}`);
    if (byEmail) {
      // The same person signing in through the provider for the first time: link the subject.
      await tx.insert(userOpenidIdentities).values({ userId: byEmail.id, sub: claims.sub }).onConflictDoUpdate({ target: userOpenidIdentities.userId, set: { sub: claims.sub } });
      return { userId: byEmail.id, created: false };
    }
    if (!createAccount) {
      await recordActivity(tx, { userId: null, username: email.slice(0, 64), ip: meta.ip }, { event: "user_login_failed", description: `No account for ${email} and account creation on first sign-in is off (external OpenID provider ${row.name})` });
      // Committed with its log entry; the refusal is thrown after the commit.
      return { userId: 0, created: false };
    }
    const source = usernameSource(claims);
    const username = source ? usernameFrom(source, handling) : "";
    if (!usernameSchema.safeParse(username).success) throw new AppError(400, `${LOGIN_MSG.badUsername} ("${source ?? ""}")`);
    const [taken] = await tx.select({ id: users.id }).from(users).where(sql`lower(${users.username}) = ${username.toLowerCase()}`);
    if (taken) throw conflict(`the username ${username} made from the provider's claims is already taken by another account with a different e-mail address`);
    const str = (v: unknown, max: number) => (typeof v === "string" ? v.trim().slice(0, max) : "");
    const [u] = await tx
      .insert(users)
      .values({
        username,
        email,
        firstName: str(claims.given_name, 128) || username,
        lastName: str(claims.family_name, 128),
        phone: str(claims.phone_number, 32) || null,
        passwordHash: null,
        enrolled: true,
      })
      .returning();
    await tx.insert(userOpenidIdentities).values({ userId: u.id, sub: claims.sub });
    await recordActivity(tx, { userId: u.id, username: u.username, ip: meta.ip }, { event: "user_added", description: `Added user ${u.username} on first sign-in through the external OpenID provider ${row.name}` });
    emit({ type: "user.created", userId: u.id, username: u.username });
    return { userId: u.id, created: true };
  });
}
