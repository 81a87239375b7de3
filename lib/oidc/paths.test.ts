import { describe, expect, it } from "vitest";
import { DISCOVERY_PATH, INTERACTION_PREFIX, isProviderPath, mayBeOidcPath, OIDC_PATHS } from "./paths";

describe("mayBeOidcPath (whether server.ts loads the OpenID handler for a request)", () => {
  it("is true for every path the handler serves, with or without a query string", () => {
    const served = [...Object.values(OIDC_PATHS), `${OIDC_PATHS.jwks}/extra`, DISCOVERY_PATH, `${INTERACTION_PREFIX}abc123`, `${INTERACTION_PREFIX}abc123/consent`];
    for (const p of served) {
      expect(mayBeOidcPath(p), p).toBe(true);
      expect(mayBeOidcPath(`${p}?client_id=x&allow=1`), p).toBe(true);
    }
    // The handler reads absolute and protocol-relative targets as URLs; so does the test.
    expect(mayBeOidcPath(`http://console.example.com${OIDC_PATHS.token}`)).toBe(true);
    expect(mayBeOidcPath(`//other${OIDC_PATHS.token}`)).toBe(true);
  });

  it("is false for what the handler leaves to Next.js", () => {
    for (const p of ["/", "/api/v1/network", "/api/v1/health", "/api/v1/oauthx", "/auth/login?next=/api/v1/oauth/token", "/.well-known/other", "/api/v1/user/oauth/token"]) {
      expect(mayBeOidcPath(p), p).toBe(false);
      expect(isProviderPath(p.split("?")[0]), p).toBe(false);
    }
  });
});
