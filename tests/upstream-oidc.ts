/**
 * A real OpenID provider (oidc-provider, with its own in-memory state) standing in for the
 * upstream identity provider of the external sign-in: Google, Entra ID, Okta and the like all
 * speak this protocol. Its sign-in page asks only for a login name (one of `accounts`); the
 * consent is given with the sign-in. Used by lib/extid/login.test.ts and e2e/extid.spec.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Configuration } from "oidc-provider";

export interface UpstreamAccount {
  email?: string;
  email_verified?: boolean;
  given_name?: string;
  family_name?: string;
  preferred_username?: string;
}

export interface Upstream {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** login name (= subject) → claims; change freely between sign-ins. */
  accounts: Map<string, UpstreamAccount>;
  close(): Promise<void>;
}

function page(res: ServerResponse, status: number, body: string) {
  res.writeHead(status, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
  res.end(`<!doctype html><html><head><meta charset="utf-8"><title>Upstream sign-in</title></head><body>${body}</body></html>`);
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export async function startUpstream(opts: { redirectUris: string[]; clientId?: string; clientSecret?: string }): Promise<Upstream> {
  const { default: Provider } = await import("oidc-provider");
  const accounts = new Map<string, UpstreamAccount>();
  const clientId = opts.clientId ?? "console-test-client";
  const clientSecret = opts.clientSecret ?? "upstream-secret-" + Math.random().toString(36).slice(2);
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const config: Configuration = {
    clients: [{ client_id: clientId, client_secret: clientSecret, redirect_uris: opts.redirectUris, grant_types: ["authorization_code"], response_types: ["code"] }],
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["given_name", "family_name", "name", "preferred_username"] },
    findAccount: async (_ctx, id) => {
      const claims = accounts.get(id);
      if (!claims) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, ...claims }) };
    },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: ["upstream-test-cookie-key"] },
    pkce: { required: () => true },
  };
  const provider = new Provider(issuer, config);
  const handler = provider.callback();

  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", issuer);
    const m = /^\/interaction\/([^/]+)$/.exec(url.pathname);
    if (!m) return void handler(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      if (req.method === "GET") {
        return page(
          res,
          200,
          `<h1>Upstream provider</h1><form method="post" action="/interaction/${esc(details.uid)}">` +
            `<label>Login <input name="login" data-testid="upstream-login" autofocus></label>` +
            `<button type="submit" data-testid="upstream-submit">Sign in</button></form>`,
        );
      }
      const login = (await readForm(req)).get("login") ?? "";
      if (!accounts.has(login)) return page(res, 401, `<p data-testid="upstream-error">unknown login</p>`);
      const grant = new provider.Grant({ accountId: login, clientId: String(details.params.client_id) });
      grant.addOIDCScope(String(details.params.scope));
      const grantId = await grant.save();
      await provider.interactionFinished(req, res, { login: { accountId: login }, consent: { grantId } }, { mergeWithLastSubmission: false });
    })().catch((err: unknown) => {
      if (!res.headersSent) page(res, 500, `<p>${esc(String(err))}</p>`);
    });
  });

  return {
    issuer,
    clientId,
    clientSecret,
    accounts,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * Drive the upstream sign-in without a browser: open `authUrl`, sign in as `login`, and return
 * the URL the provider sends the browser back to (the console's callback with code and state).
 */
export async function signInUpstream(authUrl: string, login: string): Promise<URL> {
  const jar = new Map<string, string>();
  const keep = (res: Response) => {
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const i = pair.indexOf("=");
      jar.set(pair.slice(0, i).trim(), pair.slice(i + 1).trim());
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ");
  let url = new URL(authUrl);
  let init: RequestInit = { redirect: "manual" };
  for (let hop = 0; hop < 10; hop++) {
    const res = await fetch(url, { ...init, headers: { ...(init.headers ?? {}), cookie: cookie() } });
    keep(res);
    const location = res.headers.get("location");
    if (res.status >= 300 && res.status < 400 && location) {
      const next = new URL(location, url);
      if (next.origin !== new URL(authUrl).origin) return next;
      url = next;
      init = { redirect: "manual" };
      continue;
    }
    await res.text();
    if (res.status === 200 && /^\/interaction\//.test(url.pathname)) {
      init = { redirect: "manual", method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ login }).toString() };
      continue;
    }
    throw new Error(`upstream answered ${res.status} at ${url.pathname}`);
  }
  throw new Error("too many redirects at the upstream provider");
}
