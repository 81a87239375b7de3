import "server-only";
/**
 * Microsoft Entra ID: client-credentials token for the tenant of the configured issuer
 * (`https://login.microsoftonline.com/<tenant>/v2.0`), then Microsoft Graph v1.0, pages
 * linked by `@odata.nextLink`.
 */
import { directoryEndpoints, DirectoryError, formPost, MAX_PAGES, requestJson, nullIfNotFound } from "./http";
import type { Directory, DirectoryGroup, DirectoryUser } from "./types";

interface MUser {
  id: string;
  "@odata.type"?: string;
  mail?: string | null;
  otherMails?: string[];
  userPrincipalName?: string;
  accountEnabled?: boolean;
  givenName?: string | null;
  surname?: string | null;
  mobilePhone?: string | null;
  businessPhones?: string[];
}

const USER_FIELDS = "id,mail,otherMails,userPrincipalName,accountEnabled,givenName,surname,mobilePhone,businessPhones";

/** The tenant of an Entra ID issuer URL. */
export function microsoftTenant(baseUrl: string): string {
  try {
    const tenant = new URL(baseUrl).pathname.split("/").filter(Boolean)[0];
    if (tenant && !tenant.includes("<")) return tenant;
  } catch {
    // fall through
  }
  throw new DirectoryError(`the issuer URL ${baseUrl} names no tenant (expected https://login.microsoftonline.com/<tenant>/v2.0)`);
}

const emailOf = (u: MUser) => (u.mail ?? u.otherMails?.[0] ?? null)?.toLowerCase() ?? null;

export class MicrosoftDirectory implements Directory {
  private token: string | null = null;
  constructor(
    private readonly clientId: string,
    private readonly clientSecret: string,
    private readonly baseUrl: string,
  ) {}

  async prepare() {
    const tenant = microsoftTenant(this.baseUrl);
    const url = `${directoryEndpoints().microsoftLogin}/${encodeURIComponent(tenant)}/oauth2/v2.0/token`;
    const res = await formPost<{ access_token?: string }>("Microsoft token request", url, {
      client_id: this.clientId,
      client_secret: this.clientSecret,
      scope: "https://graph.microsoft.com/.default",
      grant_type: "client_credentials",
    });
    if (!res.body.access_token) throw new DirectoryError("Microsoft token request: no access token in the answer");
    this.token = res.body.access_token;
  }

  private async pages<T>(what: string, first: string): Promise<T[]> {
    if (!this.token) await this.prepare();
    const out: T[] = [];
    let url: string | undefined = first;
    for (let i = 0; i < MAX_PAGES && url; i++) {
      const res: { body: { value?: T[]; "@odata.nextLink"?: string } } = await requestJson(what, url, { headers: { authorization: `Bearer ${this.token}` } });
      out.push(...(res.body.value ?? []));
      url = res.body["@odata.nextLink"];
    }
    if (url) throw new DirectoryError(`${what}: more than ${MAX_PAGES} pages`);
    return out;
  }

  private graph(path: string, params: Record<string, string>): string {
    const url = new URL(`/v1.0${path}`, directoryEndpoints().microsoftGraph);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return url.href;
  }

  async testConnection() {
    if (!this.token) await this.prepare();
    await requestJson("Microsoft users", this.graph("/users", { $select: "id", $top: "1" }), { headers: { authorization: `Bearer ${this.token}` } });
  }

  async users(): Promise<DirectoryUser[]> {
    const list = await this.pages<MUser>("Microsoft users", this.graph("/users", { $select: USER_FIELDS, $top: "999" }));
    return list.flatMap((u) => {
      const email = emailOf(u);
      if (!email) return [];
      return [{ id: u.id, email, active: u.accountEnabled !== false, firstName: u.givenName ?? null, lastName: u.surname ?? null, phone: u.mobilePhone ?? u.businessPhones?.[0] ?? null }];
    });
  }

  async groups(): Promise<DirectoryGroup[]> {
    const list = await this.pages<{ id: string; displayName?: string | null }>("Microsoft groups", this.graph("/groups", { $select: "id,displayName", $top: "999" }));
    return list.filter((g) => g.displayName).map((g) => ({ id: g.id, name: g.displayName! }));
  }

  async members(group: DirectoryGroup): Promise<string[]> {
    const list = await this.pages<MUser>(`Microsoft members of ${group.name}`, this.graph(`/groups/${encodeURIComponent(group.id)}/members`, { $select: "id,mail,otherMails,userPrincipalName", $top: "999" }));
    return list.filter((m) => !m["@odata.type"] || m["@odata.type"] === "#microsoft.graph.user").flatMap((m) => emailOf(m) ?? []);
  }

  async userGroups(email: string): Promise<string[] | null> {
    // The user by user principal name (Graph takes it in place of the id); groups only, not roles.
    const list = await nullIfNotFound(() =>
      this.pages<{ "@odata.type"?: string; displayName?: string | null }>(`Microsoft groups of ${email}`, this.graph(`/users/${encodeURIComponent(email)}/memberOf`, { $select: "id,displayName", $top: "999" })),
    );
    return list && list.filter((g) => g["@odata.type"] === "#microsoft.graph.group" && g.displayName).map((g) => g.displayName!);
  }
}
