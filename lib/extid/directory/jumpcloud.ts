import "server-only";
/**
 * JumpCloud: the administrator's API key in `x-api-key`; users from the v1 `systemusers` API
 * (`{totalCount, results}`), user groups and their members from the v2 API (plain lists),
 * paged with `limit` and `skip`.
 */
import { directoryEndpoints, DirectoryError, MAX_PAGES, requestJson } from "./http";
import type { Directory, DirectoryGroup, DirectoryUser } from "./types";

const LIMIT = 100;

interface JUser {
  _id: string;
  email?: string;
  firstname?: string | null;
  lastname?: string | null;
  suspended?: boolean;
  state?: string;
  phoneNumbers?: { number?: string }[];
}

export class JumpCloudDirectory implements Directory {
  constructor(private readonly apiKey: string) {}

  private get(what: string, path: string, skip: number, limit = LIMIT) {
    const url = new URL(path, directoryEndpoints().jumpcloud);
    url.searchParams.set("limit", String(limit));
    url.searchParams.set("skip", String(skip));
    return requestJson<unknown>(what, url.href, { headers: { "x-api-key": this.apiKey } });
  }

  /** A v2 list, page by page until a short page. */
  private async list<T>(what: string, path: string): Promise<T[]> {
    const out: T[] = [];
    for (let i = 0; i < MAX_PAGES; i++) {
      const res = await this.get(what, path, i * LIMIT);
      if (!Array.isArray(res.body)) throw new DirectoryError(`${what}: the answer is not a list`);
      out.push(...(res.body as T[]));
      if (res.body.length < LIMIT) return out;
    }
    throw new DirectoryError(`${what}: more than ${MAX_PAGES} pages`);
  }

  async prepare() {
    if (!this.apiKey) throw new DirectoryError("JumpCloud: no API key is set");
  }

  async testConnection() {
    await this.get("JumpCloud users", "/api/systemusers", 0, 1);
  }

  async users(): Promise<DirectoryUser[]> {
    const out: JUser[] = [];
    for (let i = 0; i < MAX_PAGES; i++) {
      const res = await this.get("JumpCloud users", "/api/systemusers", out.length);
      const body = res.body as { totalCount?: number; results?: JUser[] };
      if (!Array.isArray(body.results)) throw new DirectoryError("JumpCloud users: the answer has no results list");
      out.push(...body.results);
      if (!body.results.length || out.length >= (body.totalCount ?? 0)) {
        return out.flatMap((u) =>
          u.email
            ? [{ id: u._id, email: u.email.toLowerCase(), active: !u.suspended && u.state !== "SUSPENDED", firstName: u.firstname ?? null, lastName: u.lastname ?? null, phone: u.phoneNumbers?.[0]?.number ?? null }]
            : [],
        );
      }
    }
    throw new DirectoryError(`JumpCloud users: more than ${MAX_PAGES} pages`);
  }

  async groups(): Promise<DirectoryGroup[]> {
    const list = await this.list<{ id: string; name?: string; type?: string }>("JumpCloud user groups", "/api/v2/usergroups");
    return list.filter((g) => g.name && (!g.type || g.type === "user_group")).map((g) => ({ id: g.id, name: g.name! }));
  }

  async members(group: DirectoryGroup, all: DirectoryUser[]): Promise<string[]> {
    const list = await this.list<{ to?: { id?: string; type?: string } }>(`JumpCloud members of ${group.name}`, `/api/v2/usergroups/${encodeURIComponent(group.id)}/members`);
    const byId = new Map(all.map((u) => [u.id, u.email]));
    return list.flatMap((m) => (m.to?.type === "user" && m.to.id && byId.has(m.to.id) ? [byId.get(m.to.id)!] : []));
  }

  async userGroups(email: string, groups: DirectoryGroup[]): Promise<string[] | null> {
    const url = new URL("/api/systemusers", directoryEndpoints().jumpcloud);
    url.searchParams.set("filter", `email:$eq:${email}`);
    url.searchParams.set("fields", "_id email");
    const found = await requestJson<{ results?: JUser[] }>(`JumpCloud user ${email}`, url.href, { headers: { "x-api-key": this.apiKey } });
    const user = found.body.results?.find((u) => u.email?.toLowerCase() === email);
    if (!user) return null;
    const list = await this.list<{ id?: string; type?: string }>(`JumpCloud groups of ${email}`, `/api/v2/users/${encodeURIComponent(user._id)}/memberof`);
    const nameOf = new Map(groups.map((g) => [g.id, g.name]));
    return list.flatMap((g) => (g.type === "user_group" && g.id && nameOf.has(g.id) ? [nameOf.get(g.id)!] : []));
  }
}
