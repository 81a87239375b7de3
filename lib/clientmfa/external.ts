import "server-only";

/**
 * The seam for external MFA (location_mfa_mode "external", method OIDC = 2): the desktop client
 * signs in with the instance's external OpenID provider, whose callback marks the client's MFA
 * login as done (`completeExternalMfa` in ./service), and then calls /client-mfa/finish.
 *
 * The external-identity module (lib/extid/clientmfa.ts) registers itself at start-up with
 * `registerExternalMfaProvider` (this module cannot import it: it sits higher in the layers).
 * Without a registration, or while the provider is not set for client MFA, /client-mfa/start
 * with method 2 answers 400 "selected MFA method not available: no external OpenID provider
 * is configured".
 */
export interface ExternalMfaProvider {
  /** Whether an external OpenID provider is configured and may be used for client MFA. */
  available(): Promise<boolean>;
  /**
   * The provider's authorization URL for the MFA login `token` (its callback then calls
   * `completeExternalMfa`). Throws an AppError when the provider cannot be reached.
   */
  authorizationUrl(token: string): Promise<string>;
}

const g = globalThis as unknown as { __defguardExternalMfa?: ExternalMfaProvider | null };

export function registerExternalMfaProvider(p: ExternalMfaProvider | null): void {
  g.__defguardExternalMfa = p;
}

export async function externalMfaAvailable(): Promise<boolean> {
  const p = g.__defguardExternalMfa;
  return p ? p.available() : false;
}

/** The authorization URL of the registered provider for an MFA login (see ExternalMfaProvider). */
export async function externalMfaAuthorizationUrl(token: string): Promise<string> {
  const p = g.__defguardExternalMfa;
  if (!p) throw new Error("no external MFA provider is registered");
  return p.authorizationUrl(token);
}
