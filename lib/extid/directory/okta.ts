import "server-only";
/**
 * Okta: an OAuth service app authenticating with `private_key_jwt` (a client assertion signed
 * with its private JWK) for a client-credentials token with okta.users.read and
 * okta.groups.read, then the Okta management API at the configured Okta domain, pages linked
 * by `Link: <…>; rel="next"` headers.
 */
import { DirectoryError, formPost, jwkKey, MAX_PAGES, newJti, nullIfNotFound, requestJson, signJwt } from "./http";
import type { Directory, DirectoryGroup, DirectoryUser } from "./types";

interface OUser {
  id: string;
  status?: string;
  profile?: { email?: string; login?: string; firstName?: string | null; lastName?: string | null; mobilePhone?: string | null; primaryPhone?: string | null };
}

/** The `rel="next"` target of an RFC 8288 Link header. */
export function nextLink(header: string | null): string | null {
  if (!header) return null;
  for (const part of header.split(/,(?=\s*<)/)) {
    const m = /^\s*<([^>]+)>\s*;(.*)$/.exec(part);
    if (m && /\brel\s*=\s*"?next"?/i.test(m[2])) return m[1];
  }
  return null;
}

export class OktaDirectory implements Directory {
  private token: string | null = null;
  private readonly base: string;
  constructor(
    private readonly privateJwk: string,
    private readonly clientId: string,
    baseUrl: string,
  ) {
    this.base = baseUrl.replace(/\/+$/, "");
  }

  async prepare() {
    const tokenUrl = `${this.base}/oauth2/v1/token`;
    const { key, kid } = jwkKey(this.privateJwk);
    const now = Math.floor(Date.now() / 1000);
    const assertion = signJwt(key, { iss: this.clientId, sub: this.clientId, aud: tokenUrl, iat: now, exp: now + 300, jti: newJti() }, kid);
    const res = await formPost<{ access_token?: string }>("Okta token request", tokenUrl, {
      grant_type: "client_credentials",
      scope: "okta.users.read okta.groups.read",
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: assertion,
    });
    if (!res.body.access_token) throw new DirectoryError("Okta token request: no access token in the answer");
    this.token = res.body.access_token;
  }

  private async pages<T>(what: string, path: string, limit = "200"): Promise<T[]> {
    if (!this.token) await this.prepare();
    const out: T[] = [];
    let url: string | null = `${this.base}${path}?limit=${limit}`;
    for (let i = 0; i < MAX_PAGES && url; i++) {
      const res: { body: T[]; headers: Headers } = await requestJson<T[]>(what, url, { headers: { authorization: `Bearer ${this.token}` } });
      if (!Array.isArray(res.body)) throw new DirectoryError(`${what}: the answer is not a list`);
      out.push(...res.body);
      url = limit === "1" ? null : nextLink(res.headers.get("link"));
    }
    if (url) throw new DirectoryError(`${what}: more than ${MAX_PAGES} pages`);
    return out;
  }

  async testConnection() {
    await this.pages("Okta users", "/api/v1/users", "1");
  }

  async users(): Promise<DirectoryUser[]> {
    const list = await this.pages<OUser>("Okta users", "/api/v1/users");
    return list.flatMap((u) => {
      const email = (u.profile?.email ?? "").toLowerCase();
      if (!email) return [];
      return [{ id: u.id, email, active: u.status === "ACTIVE", firstName: u.profile?.firstName ?? null, lastName: u.profile?.lastName ?? null, phone: u.profile?.mobilePhone ?? u.profile?.primaryPhone ?? null }];
    });
  }

  async groups(): Promise<DirectoryGroup[]> {
    const list = await this.pages<{ id: string; profile?: { name?: string } }>("Okta groups", "/api/v1/groups");
    return list.filter((g) => g.profile?.name).map((g) => ({ id: g.id, name: g.profile!.name! }));
  }

  async members(group: DirectoryGroup): Promise<string[]> {
    const list = await this.pages<OUser>(`Okta members of ${group.name}`, `/api/v1/groups/${encodeURIComponent(group.id)}/users`);
    return list.flatMap((u) => (u.profile?.email ? [u.profile.email.toLowerCase()] : []));
  }

  async userGroups(email: string): Promise<string[] | null> {
    // Okta takes the login (usually the e-mail address) in place of the user id.
    const list = await nullIfNotFound(() => this.pages<{ profile?: { name?: string } }>(`Okta groups of ${email}`, `/api/v1/users/${encodeURIComponent(email)}/groups`));
    return list && list.flatMap((g) => g.profile?.name ?? []);
  }
}
