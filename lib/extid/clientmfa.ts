import "server-only";
/**
 * The external OpenID provider as the second factor of VPN locations whose client MFA mode is
 * "external" (docs/client-mfa.md, method 2), when "use OpenID for client MFA" is on:
 *
 * 1. /client-mfa/start (lib/clientmfa) asks `authorizationUrl(token)` for the provider's
 *    authorization URL (also behind the page /openid/mfa?token=…, which defguard's desktop
 *    client opens). The desktop client opens it in the system browser, which shares no
 *    cookie with the client, so the flow (MFA login token, nonce, PKCE verifier, deadline)
 *    travels sealed in `state` (AES-256-GCM with the instance key: unreadable, unforgeable).
 * 2. The provider sends the browser to `<DEFGUARD_URL>/openid/mfa/callback` (defguard's path),
 *    whose page posts {code, state} to POST /openid/mfa/callback: the code is exchanged with
 *    the nonce and PKCE checks, the person is found by subject or e-mail (never created), and
 *    `completeExternalMfa` marks the login done when that person owns the device.
 * 3. The client's /client-mfa/finish then answers the preshared key, as after a TOTP code.
 */
import * as oidc from "openid-client";
import { eq, sql } from "drizzle-orm";
import { getDb } from "../db";
import { clientMfaSessions, devices, locations, userOpenidIdentities, users } from "../db/schema";
import { decryptSecret, encryptSecret, sha256hex } from "../crypto";
import { publicUrl } from "../config";
import { AppError, forbidden, unauthorized } from "../errors";
import { transaction } from "../events";
import { recordActivity } from "../activity/service";
import { completeExternalMfa } from "../clientmfa/service";
import { registerExternalMfaProvider } from "../clientmfa/external";
import { MFA_METHOD } from "../clientmfa/schema";
import { getProviderRow } from "./service";
import { errorText, providerConfig, type RequestMeta } from "./login";
import type { CallbackInput } from "./schema";

/** As long as the MFA login it belongs to (lib/clientmfa SESSION_SECONDS). */
const FLOW_TTL_MS = 5 * 60_000;

export const MFA_MSG = {
  notEnabled: "the external OpenID provider is not set for client MFA",
  badState: "this confirmation link has expired or was not made by this console: start the connection again in the desktop client",
  noAccount: "no account of this console belongs to the person signed in at the provider",
  notOwner: "the person signed in at the provider does not own this device, or the MFA login has expired: start the connection again in the desktop client",
  noLogin: "this VPN connection attempt is unknown or has expired: start the connection again in the desktop client",
} as const;

interface MfaFlow {
  k: "client_mfa";
  token: string;
  nonce: string;
  verifier: string;
  exp: number;
}

/** Where the provider sends the browser back after a client-MFA sign-in (defguard's path). */
export function mfaCallbackUrl(): string {
  return `${publicUrl()}/openid/mfa/callback`;
}

async function enabledProvider() {
  const row = await getProviderRow();
  return row?.useOpenidForClientMfa ? row : null;
}

/** The authorization URL for the MFA login `token`; its sealed state carries the flow. */
export async function mfaAuthorizationUrl(token: string): Promise<string> {
  const row = await enabledProvider();
  if (!row) throw new AppError(400, MFA_MSG.notEnabled);
  const config = await providerConfig(row);
  const flow: MfaFlow = { k: "client_mfa", token, nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier(), exp: Date.now() + FLOW_TTL_MS };
  const params: Record<string, string> = {
    redirect_uri: mfaCallbackUrl(),
    scope: row.scopes.join(" "),
    state: encryptSecret(JSON.stringify(flow)),
    nonce: flow.nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(flow.verifier),
    code_challenge_method: "S256",
  };
  if (row.name === "Google") params.prompt = "select_account";
  return oidc.buildAuthorizationUrl(config, params).href;
}

/**
 * The page /openid/mfa?token=… (what defguard's desktop client opens in the browser for
 * method 2): the authorization URL for a pending OpenID MFA login, 400 when there is none.
 */
export async function mfaAuthorizationUrlForLogin(token: string): Promise<string> {
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(token)) throw new AppError(400, MFA_MSG.noLogin, "token");
  const [login] = await getDb()
    .select({ method: clientMfaSessions.method, expiresAt: clientMfaSessions.expiresAt })
    .from(clientMfaSessions)
    .where(eq(clientMfaSessions.tokenHash, sha256hex(token)));
  if (!login || login.method !== MFA_METHOD.OIDC || login.expiresAt.getTime() <= Date.now()) throw new AppError(400, MFA_MSG.noLogin, "token");
  return mfaAuthorizationUrl(token);
}

function openMfaFlow(state: string): MfaFlow {
  try {
    const flow = JSON.parse(decryptSecret(state)) as MfaFlow;
    if (flow.k !== "client_mfa" || typeof flow.token !== "string" || typeof flow.nonce !== "string" || !(flow.exp > Date.now())) throw new Error("not an MFA flow");
    return flow;
  } catch {
    throw new AppError(400, MFA_MSG.badState, "state");
  }
}

/**
 * POST /openid/mfa/callback: verify the provider's answer and complete the client's MFA login.
 * 400 for a state this console did not make (or past its deadline), 401 when the provider's
 * answer is refused (code, nonce), 403 when the person is not the device's owner.
 */
export async function completeMfaCallback(input: CallbackInput, meta: RequestMeta): Promise<{ location: string; device: string }> {
  const flow = openMfaFlow(input.state);
  const row = await enabledProvider();
  if (!row) throw new AppError(400, MFA_MSG.notEnabled);
  const config = await providerConfig(row);
  const current = new URL(mfaCallbackUrl());
  current.searchParams.set("code", input.code);
  current.searchParams.set("state", input.state);
  current.searchParams.set("iss", input.iss ?? config.serverMetadata().issuer);
  let claims: Record<string, unknown> & { sub: string };
  let accessToken: string;
  try {
    const tokens = await oidc.authorizationCodeGrant(config, current, {
      expectedState: input.state,
      expectedNonce: flow.nonce,
      pkceCodeVerifier: flow.verifier,
      idTokenExpected: true,
    });
    const c = tokens.claims();
    if (!c) throw new Error("the provider sent no ID token");
    claims = c as typeof claims;
    accessToken = tokens.access_token;
  } catch (err) {
    throw unauthorized(`the external provider's answer was refused: ${errorText(err)}`);
  }
  if (typeof claims.email !== "string") {
    try {
      claims = { ...(await oidc.fetchUserInfo(config, accessToken, claims.sub)), ...claims };
    } catch {
      // The subject may still find the account.
    }
  }
  const db = getDb();
  const [bySub] = await db.select({ id: userOpenidIdentities.userId }).from(userOpenidIdentities).where(eq(userOpenidIdentities.sub, claims.sub));
  const email = typeof claims.email === "string" ? claims.email.trim().toLowerCase() : "";
  const [byEmail] = bySub || !email ? [] : await db.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = ${email}`);
  const userId = bySub?.id ?? byEmail?.id;
  if (!userId) throw forbidden(MFA_MSG.noAccount);

  // The login's device and location, for the activity log and the page.
  const [login] = await db
    .select({ userId: clientMfaSessions.userId, device: devices.name, location: locations.name })
    .from(clientMfaSessions)
    .innerJoin(devices, eq(devices.id, clientMfaSessions.deviceId))
    .innerJoin(locations, eq(locations.id, clientMfaSessions.locationId))
    .where(eq(clientMfaSessions.tokenHash, sha256hex(flow.token)));
  if (!(await completeExternalMfa(flow.token, userId))) {
    const [u] = await db.select({ username: users.username }).from(users).where(eq(users.id, userId));
    if (login) {
      await transaction((tx) =>
        recordActivity(tx, { userId, username: u?.username ?? "", ip: meta.ip }, {
          event: "vpn_client_mfa_failed",
          module: "vpn",
          location: login.location,
          device: login.device,
          description: `MFA for ${login.device} in ${login.location} failed (OpenID): signed in at the provider as someone who does not own the device`,
        }),
      );
    }
    throw forbidden(MFA_MSG.notOwner);
  }
  return { location: login?.location ?? "", device: login?.device ?? "" };
}

/** Called once at start-up (server.ts): the client-MFA seam of lib/clientmfa uses this provider. */
export function registerExternalClientMfa(): void {
  registerExternalMfaProvider({
    available: async () => Boolean(await enabledProvider()),
    authorizationUrl: mfaAuthorizationUrl,
  });
}
