/**
 * Local stand-ins for the directory APIs of Google Workspace (OAuth jwt-bearer token + Admin
 * SDK Directory API), Microsoft Entra ID (client-credentials token + Graph v1.0), Okta
 * (private_key_jwt token + management API) and JumpCloud (x-api-key; v1 systemusers, v2 user
 * groups). Each speaks its provider's request and answer shapes: paths, query parameters,
 * authentication, and its own pagination (Google `nextPageToken`, Graph `@odata.nextLink`,
 * Okta `Link: rel="next"`, JumpCloud `limit`/`skip`), with deliberately small pages so the
 * clients must follow them. Third-party clouds are the only things the tests stand in for.
 */
import { createPublicKey, generateKeyPairSync, verify, type KeyObject } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Person {
  email: string;
  given: string;
  family: string;
  active: boolean;
}

export interface DirectoryData {
  people: Person[];
  /** group name → member e-mails */
  groups: Record<string, string[]>;
}

export interface Seen {
  method: string;
  path: string;
  auth: string | null;
  apiKey: string | null;
}

export interface StandIns {
  url: string;
  data: DirectoryData;
  seen: Seen[];
  google: { privateKeyPem: string; serviceAccountEmail: string; adminEmail: string };
  microsoft: { tenant: string; clientId: string; clientSecret: string };
  okta: { base: string; clientId: string; privateJwk: string };
  jumpcloud: { apiKey: string };
  close(): Promise<void>;
}

const PAGE = 2;
const TOKEN = { google: "ya29.google-token", microsoft: "eyJ.microsoft-token", okta: "okta-access-token" };

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
}

async function form(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

/** Check a compact JWS with `key`; returns the claims or null. */
function verifyJwt(jwt: string, key: KeyObject): Record<string, unknown> | null {
  const [h, p, s] = jwt.split(".");
  if (!h || !p || !s) return null;
  const header = JSON.parse(Buffer.from(h, "base64url").toString()) as { alg: string };
  const hash = { RS256: "sha256", ES256: "sha256" }[header.alg];
  if (!hash) return null;
  const ok = verify(hash, Buffer.from(`${h}.${p}`), header.alg.startsWith("ES") ? { key, dsaEncoding: "ieee-p1363" } : key, Buffer.from(s, "base64url"));
  return ok ? (JSON.parse(Buffer.from(p, "base64url").toString()) as Record<string, unknown>) : null;
}

const id = (kind: string, s: string) => `${kind}-${Buffer.from(s).toString("hex").slice(0, 16)}`;

export async function startDirectoryStandIns(data: DirectoryData): Promise<StandIns> {
  const google = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const okta = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const oktaJwk = { ...okta.privateKey.export({ format: "jwk" }), kid: "okta-test-key" };
  const seen: Seen[] = [];
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const s: StandIns = {
    url,
    data,
    seen,
    google: { privateKeyPem: google.privateKey.export({ format: "pem", type: "pkcs8" }).toString(), serviceAccountEmail: "sync@project.iam.gserviceaccount.com", adminEmail: "admin@corp.example" },
    microsoft: { tenant: "11111111-2222-3333-4444-555555555555", clientId: "ms-client", clientSecret: "ms-secret" },
    okta: { base: `${url}/okta`, clientId: "0oa-dirsync", privateJwk: JSON.stringify(oktaJwk) },
    jumpcloud: { apiKey: "jc-api-key" },
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  const googlePublic = createPublicKey(google.privateKey);
  const oktaPublic = createPublicKey(okta.privateKey);
  const groupNames = () => Object.keys(s.data.groups);
  const person = (email: string) => s.data.people.find((p) => p.email === email);
  /** Names of the groups a person is a direct member of (the per-user lookups at sign-in). */
  const groupsOf = (email: string) => groupNames().filter((n) => s.data.groups[n].includes(email));

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const u = new URL(req.url ?? "/", url);
      const path = u.pathname;
      const auth = req.headers.authorization ?? null;
      seen.push({ method: req.method ?? "GET", path, auth, apiKey: (req.headers["x-api-key"] as string | undefined) ?? null });

      // ---------------------------------------------------------------- Google
      if (path === "/google/token" && req.method === "POST") {
        const f = await form(req);
        if (f.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") return send(res, 400, { error: "unsupported_grant_type" });
        const claims = verifyJwt(f.get("assertion") ?? "", googlePublic);
        if (!claims || claims.iss !== s.google.serviceAccountEmail || claims.aud !== `${url}/google/token` || claims.sub !== s.google.adminEmail || !String(claims.scope).includes("admin.directory.user.readonly")) {
          return send(res, 400, { error: "invalid_grant", error_description: "Invalid JWT Signature." });
        }
        return send(res, 200, { access_token: TOKEN.google, expires_in: 3599, token_type: "Bearer" });
      }
      if (path.startsWith("/admin/directory/v1/")) {
        if (auth !== `Bearer ${TOKEN.google}`) return send(res, 401, { error: { code: 401, message: "Request had invalid authentication credentials." } });
        const start = Number(u.searchParams.get("pageToken") ?? 0);
        const page = <T>(key: string, all: T[], max = Number(u.searchParams.get("maxResults") ?? 100)) => {
          const size = Math.min(max, PAGE);
          const items = all.slice(start, start + size);
          return send(res, 200, { kind: "admin#directory#list", [key]: items, ...(start + size < all.length ? { nextPageToken: String(start + size) } : {}) });
        };
        if (path === "/admin/directory/v1/users") {
          if (u.searchParams.get("customer") !== "my_customer") return send(res, 400, { error: { message: "Bad Request" } });
          return page("users", s.data.people.map((p) => ({ kind: "admin#directory#user", id: id("g", p.email), primaryEmail: p.email, name: { givenName: p.given, familyName: p.family, fullName: `${p.given} ${p.family}` }, suspended: !p.active, archived: false })));
        }
        if (path === "/admin/directory/v1/groups" && u.searchParams.has("userKey")) {
          const who = u.searchParams.get("userKey")!;
          if (!person(who)) return send(res, 404, { error: { code: 404, message: "Resource Not Found: userKey" } });
          return page("groups", groupsOf(who).map((n) => ({ kind: "admin#directory#group", id: id("gg", n), email: `${n}@corp.example`, name: n })));
        }
        if (path === "/admin/directory/v1/groups") return page("groups", groupNames().map((n) => ({ kind: "admin#directory#group", id: id("gg", n), email: `${n}@corp.example`, name: n })));
        const m = /^\/admin\/directory\/v1\/groups\/([^/]+)\/members$/.exec(path);
        if (m) {
          const name = groupNames().find((n) => id("gg", n) === decodeURIComponent(m[1]));
          if (!name) return send(res, 404, { error: { code: 404, message: "Resource Not Found: groupKey" } });
          if (u.searchParams.get("includeDerivedMembership") !== "true") return send(res, 400, {});
          return page("members", [...s.data.groups[name].map((e) => ({ kind: "admin#directory#member", id: id("g", e), email: e, role: "MEMBER", type: "USER", status: "ACTIVE" })), { kind: "admin#directory#member", id: "nested", email: "nested@corp.example", role: "MEMBER", type: "GROUP" }]);
        }
      }

      // ---------------------------------------------------------------- Microsoft
      const tok = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(path);
      if (tok && req.method === "POST") {
        const f = await form(req);
        if (tok[1] !== s.microsoft.tenant) return send(res, 400, { error: "invalid_tenant", error_description: "AADSTS90002: Tenant not found." });
        if (f.get("grant_type") !== "client_credentials" || f.get("scope") !== "https://graph.microsoft.com/.default") return send(res, 400, { error: "invalid_request" });
        if (f.get("client_id") !== s.microsoft.clientId || f.get("client_secret") !== s.microsoft.clientSecret) return send(res, 401, { error: "invalid_client", error_description: "AADSTS7000215: Invalid client secret provided." });
        return send(res, 200, { token_type: "Bearer", expires_in: 3599, ext_expires_in: 3599, access_token: TOKEN.microsoft });
      }
      if (path.startsWith("/v1.0/")) {
        if (auth !== `Bearer ${TOKEN.microsoft}`) return send(res, 401, { error: { code: "InvalidAuthenticationToken", message: "Access token is empty." } });
        const skip = Number(u.searchParams.get("$skiptoken") ?? 0);
        const page = (all: unknown[]) => {
          const next = new URL(u.href);
          next.searchParams.set("$skiptoken", String(skip + PAGE));
          return send(res, 200, { "@odata.context": `${url}/v1.0/$metadata`, value: all.slice(skip, skip + PAGE), ...(skip + PAGE < all.length ? { "@odata.nextLink": next.href } : {}) });
        };
        const msUser = (p: Person) => ({ "@odata.type": "#microsoft.graph.user", id: id("m", p.email), mail: p.email, otherMails: [], userPrincipalName: p.email, accountEnabled: p.active, givenName: p.given, surname: p.family, mobilePhone: null, businessPhones: [] });
        if (path === "/v1.0/users") return page(s.data.people.map(msUser));
        if (path === "/v1.0/groups") return page(groupNames().map((n) => ({ id: id("mg", n), displayName: n })));
        const mo = /^\/v1\.0\/users\/([^/]+)\/memberOf$/.exec(path);
        if (mo) {
          const who = s.data.people.find((p) => p.email === decodeURIComponent(mo[1]) || id("m", p.email) === mo[1]);
          if (!who) return send(res, 404, { error: { code: "Request_ResourceNotFound", message: `Resource '${decodeURIComponent(mo[1])}' does not exist.` } });
          return page([...groupsOf(who.email).map((n) => ({ "@odata.type": "#microsoft.graph.group", id: id("mg", n), displayName: n })), { "@odata.type": "#microsoft.graph.directoryRole", id: "role-1", displayName: "Global Reader" }]);
        }
        const m = /^\/v1\.0\/groups\/([^/]+)\/members$/.exec(path);
        if (m) {
          const name = groupNames().find((n) => id("mg", n) === m[1]);
          if (!name) return send(res, 404, { error: { code: "Request_ResourceNotFound" } });
          return page([...s.data.groups[name].map((e) => msUser(person(e) ?? { email: e, given: "", family: "", active: true })), { "@odata.type": "#microsoft.graph.group", id: "nested-group", mail: "nested@corp.example" }]);
        }
      }

      // ---------------------------------------------------------------- Okta
      if (path === "/okta/oauth2/v1/token" && req.method === "POST") {
        const f = await form(req);
        if (f.get("client_assertion_type") !== "urn:ietf:params:oauth:client-assertion-type:jwt-bearer" || f.get("grant_type") !== "client_credentials") return send(res, 400, { error: "invalid_request" });
        const claims = verifyJwt(f.get("client_assertion") ?? "", oktaPublic);
        if (!claims || claims.iss !== s.okta.clientId || claims.sub !== s.okta.clientId || claims.aud !== `${s.okta.base}/oauth2/v1/token` || !claims.jti) {
          return send(res, 401, { error: "invalid_client", error_description: "The client_assertion signature is invalid." });
        }
        if (!String(f.get("scope")).split(" ").includes("okta.users.read")) return send(res, 400, { error: "invalid_scope" });
        return send(res, 200, { token_type: "Bearer", expires_in: 3600, access_token: TOKEN.okta, scope: f.get("scope") });
      }
      if (path.startsWith("/okta/api/v1/")) {
        if (auth !== `Bearer ${TOKEN.okta}`) return send(res, 401, { errorCode: "E0000011", errorSummary: "Invalid token provided" });
        const after = Number(u.searchParams.get("after") ?? 0);
        const limit = Math.min(Number(u.searchParams.get("limit") ?? 200), PAGE);
        const page = (all: unknown[]) => {
          const headers: Record<string, string> = {};
          const self = new URL(u.href);
          const links = [`<${self.href}>; rel="self"`];
          if (after + limit < all.length) {
            const next = new URL(u.href);
            next.searchParams.set("after", String(after + limit));
            links.push(`<${next.href}>; rel="next"`);
          }
          headers.link = links.join(", ");
          return send(res, 200, all.slice(after, after + limit), headers);
        };
        const oktaUser = (p: Person) => ({ id: id("o", p.email), status: p.active ? "ACTIVE" : "SUSPENDED", profile: { firstName: p.given, lastName: p.family, email: p.email, login: p.email, mobilePhone: null } });
        if (path === "/okta/api/v1/users") return page(s.data.people.map(oktaUser));
        if (path === "/okta/api/v1/groups") return page(groupNames().map((n) => ({ id: id("og", n), type: "OKTA_GROUP", profile: { name: n, description: null } })));
        const ug = /^\/okta\/api\/v1\/users\/([^/]+)\/groups$/.exec(path);
        if (ug) {
          const who = s.data.people.find((p) => p.email === decodeURIComponent(ug[1]) || id("o", p.email) === ug[1]);
          if (!who) return send(res, 404, { errorCode: "E0000007", errorSummary: `Not found: Resource not found: ${decodeURIComponent(ug[1])} (User)` });
          return page(groupsOf(who.email).map((n) => ({ id: id("og", n), type: "OKTA_GROUP", profile: { name: n, description: null } })));
        }
        const m = /^\/okta\/api\/v1\/groups\/([^/]+)\/users$/.exec(path);
        if (m) {
          const name = groupNames().find((n) => id("og", n) === m[1]);
          if (!name) return send(res, 404, { errorCode: "E0000007", errorSummary: "Not found" });
          return page(s.data.groups[name].map((e) => oktaUser(person(e) ?? { email: e, given: "", family: "", active: true })));
        }
      }

      // ---------------------------------------------------------------- JumpCloud
      if (path.startsWith("/api/")) {
        if (req.headers["x-api-key"] !== s.jumpcloud.apiKey) return send(res, 401, { message: "Unauthorized" });
        const limit = Math.min(Number(u.searchParams.get("limit") ?? 10), 100);
        const skip = Number(u.searchParams.get("skip") ?? 0);
        // v1 caps a page at what it likes; the small page makes the client follow totalCount.
        if (path === "/api/systemusers") {
          const filter = /^email:\$eq:(.+)$/.exec(u.searchParams.get("filter") ?? "");
          const all = s.data.people.filter((p) => !filter || p.email === filter[1]).map((p) => ({ _id: id("j", p.email), email: p.email, username: p.email.split("@")[0], firstname: p.given, lastname: p.family, activated: true, suspended: !p.active, state: p.active ? "ACTIVATED" : "SUSPENDED" }));
          return send(res, 200, { totalCount: all.length, results: all.slice(skip, skip + Math.min(limit, PAGE)) });
        }
        // v2 lists: exactly `limit` items per page (the client stops at a short page).
        if (path === "/api/v2/usergroups") return send(res, 200, groupNames().map((n) => ({ id: id("jg", n), name: n, type: "user_group" })).slice(skip, skip + limit));
        const mo = /^\/api\/v2\/users\/([^/]+)\/memberof$/.exec(path);
        if (mo) {
          const who = s.data.people.find((p) => id("j", p.email) === mo[1]);
          if (!who) return send(res, 404, { message: "Not Found" });
          return send(res, 200, groupsOf(who.email).map((n) => ({ id: id("jg", n), type: "user_group", paths: [[{ attributes: null, to: { id: id("jg", n), type: "user_group" } }]], compiledAttributes: null })).slice(skip, skip + limit));
        }
        const m = /^\/api\/v2\/usergroups\/([^/]+)\/members$/.exec(path);
        if (m) {
          const name = groupNames().find((n) => id("jg", n) === m[1]);
          if (!name) return send(res, 404, { message: "Not Found" });
          return send(res, 200, s.data.groups[name].map((e) => ({ attributes: null, to: { attributes: null, id: id("j", e), type: "user" } })).slice(skip, skip + limit));
        }
      }
      send(res, 404, { error: `stand-in has no ${req.method} ${path}` });
    })().catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, { error: String(err) });
    });
  });
  return s;
}
