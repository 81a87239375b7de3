/**
 * OpenID token endpoint: code exchange and refresh (with rotation) from concurrent clients, on a
 * running server whose database holds 10,000 users. Codes are minted beforehand through the
 * provider's own models on the same database (what a consent does), spread over the users; the
 * timed part is only POST /api/v1/oauth/token with client_secret_basic.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createHash, randomBytes } from "node:crypto";
import { ensureBuild, E2E_DIST_DIR } from "../../e2e/setup/build";
import { makeTempDir, startServer } from "../../e2e/setup/server";
import { max, ms, percentile } from "../lib/stats";
import type { Row, Suite, SuiteContext } from "../lib/types";

const USERS = Number(process.env.BENCH_OIDC_USERS || 10_000);
const CODES = Number(process.env.BENCH_OIDC_CODES || 2000);
const CONCURRENCY = Number(process.env.BENCH_OIDC_CONCURRENCY || 8);
const REDIRECT = "https://app.bench.invalid/callback";

interface Load {
  latencies: number[];
  statuses: Map<string, number>;
  elapsedMs: number;
  bodies: Record<string, unknown>[];
}

async function hammer(items: string[], concurrency: number, send: (item: string) => Promise<Response>): Promise<Load> {
  const latencies: number[] = [];
  const statuses = new Map<string, number>();
  const bodies: Record<string, unknown>[] = [];
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++];
      const s = performance.now();
      let status: string;
      try {
        const res = await send(item);
        status = String(res.status);
        bodies.push((await res.json()) as Record<string, unknown>);
      } catch (e) {
        status = `error: ${(e as Error).message}`;
      }
      latencies.push(performance.now() - s);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { latencies, statuses, elapsedMs: performance.now() - t0, bodies };
}

function row(what: string, r: Load): Row {
  const ok = r.statuses.get("200") ?? 0;
  const other = [...r.statuses].filter(([s]) => s !== "200").map(([s, n]) => `${s}×${n}`);
  return {
    operation: what,
    users: USERS,
    clients: CONCURRENCY,
    requests: r.latencies.length,
    "req/s": ((ok / r.elapsedMs) * 1000).toFixed(1),
    "p50 ms": ms(percentile(r.latencies, 50)),
    "p99 ms": ms(percentile(r.latencies, 99)),
    "max ms": ms(max(r.latencies)),
    "non-200": other.length ? other.join(", ") : "0",
  };
}

async function run(ctx: SuiteContext): Promise<Row[]> {
  await ensureBuild({ root: ctx.root, distDir: E2E_DIST_DIR, log: ctx.log });
  const dir = makeTempDir("defguard-bench-oidc-");
  const server = await startServer({
    root: ctx.root,
    entry: "server",
    distDir: E2E_DIST_DIR,
    dataDir: join(dir, "data"),
    logFile: join(dir, "server.log"),
  });
  try {
    if (!server.dbPort) throw new Error("no embedded PostgreSQL port in the server output");
    // This process works on the server's database with the server's secrets (to mint codes).
    const { resolveSecrets } = await import("../../lib/secrets-file");
    const secrets = resolveSecrets(server.dataDir);
    process.env.DATABASE_URL = `postgres://defguard:${encodeURIComponent(secrets.embeddedDbPassword!)}@127.0.0.1:${server.dbPort}/defguard`;
    process.env.DEFGUARD_URL = server.baseURL;
    const { getPool, closeDb } = await import("../../lib/db");
    const { encryptSecret } = await import("../../lib/crypto");
    const { getProvider } = await import("../../lib/oidc/provider");
    try {
      ctx.log(`[oidc] creating ${USERS} users...`);
      await getPool().query(
        `insert into users (username, first_name, last_name, email) select 'oidc' || i, 'Bench', i::text, 'oidc' || i || '@bench.invalid' from generate_series(1, $1) i`,
        [USERS],
      );
      const ids = (await getPool().query<{ id: number }>(`select id from users where username like 'oidc%' order by id`)).rows.map((r) => r.id);
      const clientId = randomBytes(12).toString("base64url");
      const clientSecret = randomBytes(32).toString("base64url");
      await getPool().query(
        `insert into oauth2_clients (client_id, client_secret, name, redirect_uri, scope) values ($1, $2, 'Bench', $3, $4)`,
        [clientId, encryptSecret(clientSecret), [REDIRECT], ["openid", "profile", "email", "groups"]],
      );
      ctx.log(`[oidc] minting ${CODES} codes...`);
      const provider = await getProvider();
      const client = await provider.Client.find(clientId);
      const verifier = randomBytes(32).toString("base64url");
      const challenge = createHash("sha256").update(verifier).digest("base64url");
      const codes: string[] = [];
      for (let i = 0; i < CODES; i++) {
        const accountId = String(ids[(i * 7919) % ids.length]);
        const grant = new provider.Grant({ accountId, clientId });
        grant.addOIDCScope("openid profile email groups offline_access");
        const grantId = await grant.save();
        const code = new provider.AuthorizationCode({
          accountId,
          client,
          grantId,
          redirectUri: REDIRECT,
          scope: "openid profile email groups offline_access",
          codeChallenge: challenge,
          codeChallengeMethod: "S256",
          authTime: Math.floor(Date.now() / 1000),
          claims: {},
        } as never);
        codes.push(await code.save());
      }
      const basic = `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString("base64")}`;
      const token = (body: Record<string, string>) =>
        fetch(`${server.baseURL}/api/v1/oauth/token`, {
          method: "POST",
          headers: { authorization: basic, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(body).toString(),
        });
      ctx.log(`[oidc] code exchange, ${CONCURRENCY} clients...`);
      const exchange = await hammer(codes, CONCURRENCY, (code) =>
        token({ grant_type: "authorization_code", code, redirect_uri: REDIRECT, code_verifier: verifier }),
      );
      const refreshTokens = exchange.bodies.map((b) => b.refresh_token).filter((t): t is string => typeof t === "string");
      ctx.log(`[oidc] refresh of ${refreshTokens.length} tokens, ${CONCURRENCY} clients...`);
      const refresh = await hammer(refreshTokens, CONCURRENCY, (rt) => token({ grant_type: "refresh_token", refresh_token: rt }));
      return [row("code exchange", exchange), row("refresh (rotating)", refresh)];
    } finally {
      await closeDb().catch(() => {});
    }
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const suite: Suite = {
  name: "oidc",
  description: `POST /api/v1/oauth/token: authorization code exchange (PKCE S256) and refresh with rotation, ${USERS} users in the database`,
  run,
};
export default suite;
