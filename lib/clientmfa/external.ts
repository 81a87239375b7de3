import "server-only";

/**
 * The seam for external MFA (location_mfa_mode "external", method OIDC = 2): the desktop client
 * signs in with the instance's external OpenID provider, whose callback marks the client's MFA
 * login as done (`completeExternalMfa` in ./service), and then calls /client-mfa/finish.
 *
 * Until external OpenID sign-in exists nothing registers a provider, and /client-mfa/start with
 * method 2 answers 400 "selected MFA method not available: no external OpenID provider is
 * configured". The external-identity module registers itself at start-up with
 * `registerExternalMfaProvider` (this module cannot import it: it sits higher in the layers).
 */
export interface ExternalMfaProvider {
  /** Whether an external OpenID provider is configured and may be used for client MFA. */
  available(): Promise<boolean>;
}

const g = globalThis as unknown as { __defguardExternalMfa?: ExternalMfaProvider | null };

export function registerExternalMfaProvider(p: ExternalMfaProvider | null): void {
  g.__defguardExternalMfa = p;
}

export async function externalMfaAvailable(): Promise<boolean> {
  const p = g.__defguardExternalMfa;
  return p ? p.available() : false;
}
