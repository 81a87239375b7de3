import "server-only";
/**
 * Google Workspace: a service-account JWT (impersonating the admin e-mail) exchanged for an
 * access token (RFC 7523 jwt-bearer), then the Admin SDK Directory API, pages linked by
 * `nextPageToken`.
 */
import { directoryEndpoints, DirectoryError, formPost, MAX_PAGES, pemKey, requestJson, signJwt, nullIfNotFound } from "./http";
import type { Directory, DirectoryGroup, DirectoryUser } from "./types";

export const GOOGLE_SCOPES = [
  "https://www.googleapis.com/auth/admin.directory.user.readonly",
  "https://www.googleapis.com/auth/admin.directory.group.readonly",
  "https://www.googleapis.com/auth/admin.directory.group.member.readonly",
].join(" ");

interface GUser {
  id: string;
  primaryEmail?: string;
  suspended?: boolean;
  archived?: boolean;
  name?: { givenName?: string; familyName?: string };
  phones?: { value?: string; primary?: boolean }[];
}

export class GoogleDirectory implements Directory {
  private token: string | null = null;
  constructor(
    private readonly privateKeyPem: string,
    private readonly serviceAccountEmail: string,
    private readonly adminEmail: string,
  ) {}

  async prepare() {
    const { googleToken } = directoryEndpoints();
    const now = Math.floor(Date.now() / 1000);
    const assertion = signJwt(pemKey(this.privateKeyPem), {
      iss: this.serviceAccountEmail,
      sub: this.adminEmail,
      scope: GOOGLE_SCOPES,
      aud: googleToken,
      iat: now,
      exp: now + 3600,
    });
    const res = await formPost<{ access_token?: string }>("Google token request", googleToken, {
      grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer",
      assertion,
    });
    if (!res.body.access_token) throw new DirectoryError("Google token request: no access token in the answer");
    this.token = res.body.access_token;
  }

  private async pages<T>(what: string, path: string, params: Record<string, string>, pick: (b: Record<string, unknown>) => T[] | undefined): Promise<T[]> {
    if (!this.token) await this.prepare();
    const out: T[] = [];
    let pageToken: string | undefined;
    for (let i = 0; i < MAX_PAGES; i++) {
      const url = new URL(path, directoryEndpoints().googleAdmin);
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      if (pageToken) url.searchParams.set("pageToken", pageToken);
      const res = await requestJson<Record<string, unknown>>(what, url.href, { headers: { authorization: `Bearer ${this.token}` } });
      out.push(...(pick(res.body) ?? []));
      pageToken = typeof res.body.nextPageToken === "string" && res.body.nextPageToken ? res.body.nextPageToken : undefined;
      if (!pageToken) return out;
    }
    throw new DirectoryError(`${what}: more than ${MAX_PAGES} pages`);
  }

  async testConnection() {
    await this.pages("Google users", "/admin/directory/v1/users", { customer: "my_customer", maxResults: "1", showDeleted: "false" }, () => []);
  }

  async users(): Promise<DirectoryUser[]> {
    const list = await this.pages<GUser>("Google users", "/admin/directory/v1/users", { customer: "my_customer", maxResults: "200", showDeleted: "false" }, (b) => b.users as GUser[] | undefined);
    return list
      .filter((u) => u.primaryEmail)
      .map((u) => ({
        id: u.id,
        email: u.primaryEmail!.toLowerCase(),
        active: !u.suspended && !u.archived,
        firstName: u.name?.givenName ?? null,
        lastName: u.name?.familyName ?? null,
        phone: (u.phones?.find((p) => p.primary) ?? u.phones?.[0])?.value ?? null,
      }));
  }

  async groups(): Promise<DirectoryGroup[]> {
    const list = await this.pages<{ id: string; name?: string; email?: string }>("Google groups", "/admin/directory/v1/groups", { customer: "my_customer", maxResults: "200" }, (b) => b.groups as never);
    return list.map((g) => ({ id: g.id, name: g.name ?? g.email ?? g.id }));
  }

  async members(group: DirectoryGroup): Promise<string[]> {
    const list = await this.pages<{ email?: string; type?: string }>(
      `Google members of ${group.name}`,
      `/admin/directory/v1/groups/${encodeURIComponent(group.id)}/members`,
      { includeDerivedMembership: "true", maxResults: "200" },
      (b) => b.members as never,
    );
    return list.filter((m) => m.type === "USER" && m.email).map((m) => m.email!.toLowerCase());
  }

  async userGroups(email: string): Promise<string[] | null> {
    const list = await nullIfNotFound(() =>
      this.pages<{ id: string; name?: string; email?: string }>(`Google groups of ${email}`, "/admin/directory/v1/groups", { userKey: email, maxResults: "200" }, (b) => b.groups as never),
    );
    return list && list.map((g) => g.name ?? g.email ?? g.id);
  }
}
