/**
 * Two console processes on one PostgreSQL, as N replicas behind a load balancer would run:
 * process A runs the embedded database, process B is pointed at it with DATABASE_URL, A's
 * secrets and the same public URL. Shown here:
 * - a change made through A reaches a gateway's Updates stream held by B (NOTIFY across processes);
 * - a session made on A works on B (reads and anti-forgery-checked writes), and signing out
 *   on B ends it on A;
 * - periodic jobs run once per interval across both processes, not once per process;
 * - an OpenID authorization started on A finishes on B: the sign-in and consent steps alternate
 *   between the two, the code A issues is redeemed at B's token endpoint, and A's userinfo
 *   accepts B's access token.
 */
import { createHash, generateKeyPairSync, randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import { expect, request, test, type APIRequestContext, type APIResponse } from "@playwright/test";
import { makeTempDir, startServer, type RunningServer } from "./setup/server";
import { gatewayProtos } from "./support";

const ADMIN_PASSWORD = "Admin123!x";
const suffix = () => Math.random().toString(36).slice(2, 7);

interface Secrets {
  secretKey: string;
  gatewaySecret: string;
  workerSecret: string;
  encryptionKey: string;
  embeddedDbPassword: string;
}
interface GatewayState {
  hostname: string;
  connected: boolean;
}
interface Update {
  update_type: string;
  peer?: { pubkey: string; allowed_ips: string[] } | null;
}

/** A cookie-jar API client for one server, sending X-XSRF-TOKEN on unsafe methods. */
class Api {
  private constructor(readonly ctx: APIRequestContext) {}

  static async signedIn(baseURL: string, username: string, password: string): Promise<Api> {
    const api = new Api(await request.newContext({ baseURL }));
    await api.ok(api.ctx.post("/api/v1/auth", { data: { username, password } }));
    return api;
  }

  /** A client for another server holding this one's cookies (same host, other port). */
  async on(baseURL: string): Promise<Api> {
    return new Api(await request.newContext({ baseURL, storageState: await this.ctx.storageState() }));
  }

  private async xsrf(): Promise<Record<string, string>> {
    const { cookies } = await this.ctx.storageState();
    const token = cookies.find((c) => c.name === "XSRF-TOKEN")?.value;
    return token ? { "x-xsrf-token": token } : {};
  }

  get(path: string) {
    return this.ctx.get(path);
  }
  async headers(): Promise<Record<string, string>> {
    return this.xsrf();
  }
  async post(path: string, data: unknown) {
    return this.ctx.post(path, { data, headers: await this.xsrf() });
  }
  async put(path: string, data: unknown) {
    return this.ctx.put(path, { data, headers: await this.xsrf() });
  }
  async ok<T = unknown>(res: Promise<APIResponse>, status = 200): Promise<T> {
    const r = await res;
    expect(r.status(), `${r.url()}: ${await r.text()}`).toBe(status);
    return (await r.json()) as T;
  }
  dispose() {
    return this.ctx.dispose();
  }
}

/** A gateway client on the console's gRPC port. */
function gatewayClient(port: number) {
  const protos = gatewayProtos();
  return new protos.gateway.GatewayService(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
}

/** A fake gateway's Updates stream, collecting what arrives. */
function openUpdates(port: number, token: string, hostname: string) {
  const client = gatewayClient(port);
  const md = new grpc.Metadata();
  md.set("authorization", token);
  md.set("hostname", hostname);
  md.set("defguard-component-version", "1.5.0");
  const stream = (client as unknown as { Updates: (req: object, md: grpc.Metadata) => grpc.ClientReadableStream<Update> }).Updates({}, md);
  const got: Update[] = [];
  const errors: Error[] = [];
  stream.on("data", (u: Update) => got.push(u));
  stream.on("error", (e: Error) => errors.push(e));
  return {
    got,
    errors,
    close() {
      stream.cancel();
      client.close();
    },
  };
}

/** A real WireGuard public key: the raw 32 bytes at the end of an X25519 SPKI DER. */
function wireguardPublicKey(): string {
  const { publicKey } = generateKeyPairSync("x25519");
  return publicKey.export({ type: "spki", format: "der" }).subarray(-32).toString("base64");
}

const servers: { a: RunningServer | null; b: RunningServer | null } = { a: null, b: null };
const dirs: string[] = [];
let failed = false;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const dirA = makeTempDir("defguard-mp-a-");
  const dirB = makeTempDir("defguard-mp-b-");
  dirs.push(dirA, dirB);
  const a = await startServer({
    dataDir: join(dirA, "data"),
    logFile: join(dirA, "server.log"),
    env: { DEFGUARD_DEFAULT_ADMIN_PASSWORD: ADMIN_PASSWORD },
  });
  servers.a = a;
  expect(a.dbPort, `A started no embedded PostgreSQL; log:\n${a.log()}`).not.toBeNull();
  const secrets = JSON.parse(readFileSync(join(a.dataDir, "secrets.json"), "utf8")) as Secrets;
  const databaseUrl = `postgres://defguard:${encodeURIComponent(secrets.embeddedDbPassword)}@127.0.0.1:${a.dbPort}/defguard`;
  servers.b = await startServer({
    dataDir: join(dirB, "data"),
    logFile: join(dirB, "server.log"),
    env: {
      DATABASE_URL: databaseUrl,
      // Behind a load balancer every replica has the same public URL (the OpenID issuer).
      DEFGUARD_URL: a.baseURL,
      DEFGUARD_SECRET_KEY: secrets.secretKey,
      DEFGUARD_GATEWAY_SECRET: secrets.gatewaySecret,
      DEFGUARD_YUBIBRIDGE_SECRET: secrets.workerSecret,
      DEFGUARD_ENCRYPTION_KEY: secrets.encryptionKey,
    },
  });
  expect(servers.b.dbPort, "B must use A's database, not start its own").toBeNull();
});

test.afterEach(async ({}, info) => {
  if (info.status !== info.expectedStatus) failed = true;
});

test.afterAll(async () => {
  const { a, b } = servers;
  if (b) await b.stop();
  if (a) await a.stop();
  if (failed) {
    // Keep the logs in the report before the directories go away.
    if (b) console.log(`--- server B log ---\n${b.log().split("\n").slice(-60).join("\n")}`);
    if (a) console.log(`--- server A log ---\n${a.log().split("\n").slice(-60).join("\n")}`);
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test("a change made through process A reaches a gateway stream held by process B", async () => {
  const a = servers.a!;
  const b = servers.b!;
  let api: Api | null = null;
  let gateway: ReturnType<typeof openUpdates> | null = null;

  try {
    // Fixtures through A: a location, a user, the location's gateway token.
    api = await Api.signedIn(a.baseURL, "admin", ADMIN_PASSWORD);
    const location = await api.ok<{ id: number }>(
      api.post("/api/v1/network", {
        name: `MP ${suffix()}`,
        address: "10.77.0.1/24",
        endpoint: "vpn.example.com",
        port: 51820,
        allowed_ips: "0.0.0.0/0",
        allowed_groups: [],
      }),
      201,
    );
    const username = `mp${suffix()}`;
    const user = {
      username,
      first_name: "Multi",
      last_name: "Process",
      email: `${username}@example.com`,
      phone: null,
    };
    await api.ok(api.post("/api/v1/user", { ...user, password: "Passw0rd!x" }), 201);
    const { token } = await api.ok<{ token: string }>(api.get(`/api/v1/network/${location.id}/token`));

    // The gateway connects to B; A sees it connected (the state is in the shared database).
    const hostname = "mp-gw";
    gateway = openUpdates(b.grpcPort, token, hostname);
    await expect
      .poll(
        async () => {
          const all = await api!.ok<Record<string, GatewayState[]>>(api!.get("/api/v1/network/gateways"));
          return (all[String(location.id)] ?? []).find((g) => g.hostname === hostname)?.connected ?? false;
        },
        { timeout: 15_000 },
      )
      .toBe(true);
    expect(gateway.errors).toEqual([]);

    // A device created through A reaches B's stream as CREATE.
    const pubkey = wireguardPublicKey();
    await api.ok(api.post(`/api/v1/device/${username}`, { name: "mp-laptop", wireguard_pubkey: pubkey }), 201);
    const g = gateway;
    await expect
      .poll(() => g.got.find((u) => u.peer?.pubkey === pubkey && u.update_type === "CREATE") ?? null, { timeout: 5_000 })
      .toMatchObject({ update_type: "CREATE", peer: { pubkey } });

    // Disabling the user through A reaches B's stream as DELETE for the key.
    await api.ok(api.put(`/api/v1/user/${username}`, { ...user, is_active: false }));
    await expect
      .poll(() => g.got.find((u) => u.peer?.pubkey === pubkey && u.update_type === "DELETE") ?? null, { timeout: 5_000 })
      .toMatchObject({ update_type: "DELETE", peer: { pubkey } });
    expect(gateway.errors).toEqual([]);
  } finally {
    gateway?.close();
    await api?.dispose();
  }
});

test("a session made on A works on B, and signing out on B ends it on A", async () => {
  const a = servers.a!;
  const b = servers.b!;
  const onA = await Api.signedIn(a.baseURL, "admin", ADMIN_PASSWORD);
  const onB = await onA.on(b.baseURL);
  try {
    expect(await onB.ok<{ username: string }>(onB.get("/api/v1/me"))).toMatchObject({ username: "admin" });
    // A write on B, with the anti-forgery token A issued: B holds the same secret.
    const name = `mp-${suffix()}`;
    await onB.ok(onB.post("/api/v1/group", { name, members: [] }), 201);
    expect((await onA.get(`/api/v1/group/${name}`)).status()).toBe(200);
    // Without the token B refuses the write, so the success above was not a lax check.
    expect((await onB.ctx.post("/api/v1/group", { data: { name: `${name}-x`, members: [] } })).status()).toBe(403);
    await onB.ok(onB.post("/api/v1/auth/logout", {}));
    expect((await onA.get("/api/v1/me")).status()).toBe(401);
  } finally {
    await onB.dispose();
    await onA.dispose();
  }
});

/** job_runs_total for one job from a console's /metrics (0 before its first run). */
async function jobRuns(baseURL: string, job: string): Promise<number> {
  const text = await (await fetch(`${baseURL}/metrics`)).text();
  const m = text.match(new RegExp(`^defguard_job_runs_total\\{[^}]*job="${job}"[^}]*\\} (\\d+)`, "m"));
  return m ? Number(m[1]) : 0;
}

test("periodic jobs run once per interval across both processes", async () => {
  test.setTimeout(120_000);
  const a = servers.a!;
  const b = servers.b!;
  // The presence job ticks every 10 s in each process; uncoordinated, two processes would
  // run it about twice per interval.
  const WINDOW_S = 41;
  const before = [await jobRuns(a.baseURL, "presence"), await jobRuns(b.baseURL, "presence")];
  const t0 = Date.now();
  await new Promise((r) => setTimeout(r, WINDOW_S * 1000));
  const after = [await jobRuns(a.baseURL, "presence"), await jobRuns(b.baseURL, "presence")];
  const elapsed = (Date.now() - t0) / 1000;
  const runs = after[0] - before[0] + (after[1] - before[1]);
  const intervals = elapsed / 10;
  // Runs are at least 9 s apart cluster-wide (10 % slack for early timers): at most
  // floor(elapsed / 9) + 1; and with a tick every 10 s in each process, at least one per 20 s.
  expect(runs, `A ran ${after[0] - before[0]}, B ran ${after[1] - before[1]} in ${elapsed.toFixed(1)} s`).toBeLessThanOrEqual(Math.floor(elapsed / 9) + 1);
  expect(runs).toBeGreaterThanOrEqual(Math.floor(intervals / 2));
  expect(runs).toBeLessThan(2 * intervals - 1);
});

test("an OpenID authorization started on A finishes on B", async () => {
  const a = servers.a!;
  const b = servers.b!;
  const admin = await Api.signedIn(a.baseURL, "admin", ADMIN_PASSWORD);
  const callback = "https://rp.example.com/callback";
  const app = await admin.ok<{ client_id: string; client_secret: string }>(
    admin.post("/api/v1/oauth", { name: `MP app ${suffix()}`, redirect_uri: [callback], scope: ["openid", "profile", "email"] }),
    201,
  );
  // The user's browser: one cookie jar for both servers (same host), hops alternate A, B, A, ...
  const browser = await admin.on(a.baseURL);
  const verifier = randomBytes(32).toString("base64url");
  const state = randomBytes(8).toString("hex");
  const query = new URLSearchParams({
    client_id: app.client_id,
    redirect_uri: callback,
    response_type: "code",
    scope: "openid profile email",
    state,
    nonce: randomBytes(8).toString("hex"),
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
  });
  const origins = [a.baseURL, b.baseURL];
  const served: string[] = [];
  let next = `${a.baseURL}/api/v1/oauth/authorize?${query}`;
  let code: string | null = null;
  try {
    for (let hop = 0; hop < 12 && !code; hop++) {
      const origin = origins[hop % 2];
      const u = new URL(next, origin);
      const target = `${origin}${u.pathname}${u.search}`;
      served.push(`${hop % 2 ? "B" : "A"} ${u.pathname}`);
      let res = await browser.ctx.get(target, { maxRedirects: 0 });
      if (res.status() === 200 && u.pathname.startsWith("/api/v1/oauth/interaction/")) {
        // The consent page: answer it on the other process.
        const html = await res.text();
        const xsrf = html.match(/name="xsrf" value="([^"]+)"/)?.[1];
        expect(xsrf, html).toBeTruthy();
        hop++;
        const other = origins[hop % 2];
        served.push(`${hop % 2 ? "B" : "A"} POST ${u.pathname}`);
        res = await browser.ctx.post(`${other}${u.pathname}`, { form: { xsrf: xsrf!, decision: "allow" }, maxRedirects: 0 });
      }
      expect([302, 303], `${target}: ${res.status()} ${await res.text()}`).toContain(res.status());
      next = res.headers()["location"];
      if (next.startsWith(callback)) {
        const back = new URL(next);
        expect(back.searchParams.get("state")).toBe(state);
        code = back.searchParams.get("code");
      }
    }
    expect(code, served.join(" -> ")).toBeTruthy();
    expect(served.some((s) => s.startsWith("A ")) && served.some((s) => s.startsWith("B "))).toBe(true);

    // The code is redeemed at B's token endpoint; A's userinfo accepts B's access token.
    const basic = Buffer.from(`${encodeURIComponent(app.client_id)}:${encodeURIComponent(app.client_secret)}`).toString("base64");
    const tokenRes = await fetch(`${b.baseURL}/api/v1/oauth/token`, {
      method: "POST",
      headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "authorization_code", code: code!, redirect_uri: callback, code_verifier: verifier }),
    });
    const tokens = (await tokenRes.json()) as { access_token?: string; id_token?: string };
    expect(tokenRes.status, JSON.stringify(tokens)).toBe(200);
    expect(tokens.id_token).toBeTruthy();
    const claims = JSON.parse(Buffer.from(tokens.id_token!.split(".")[1], "base64url").toString()) as { iss: string; aud: string };
    expect(claims).toMatchObject({ iss: a.baseURL, aud: app.client_id });
    const info = await fetch(`${a.baseURL}/api/v1/oauth/userinfo`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(info.status).toBe(200);
    expect(await info.json()).toMatchObject({ preferred_username: "admin" });
  } finally {
    await browser.dispose();
    await admin.dispose();
  }
});
