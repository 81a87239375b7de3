/**
 * Settings → Global (issue 19): module switches refuse their routes, logo uploads are checked
 * (type by content, size, pixel size, SVG content), stored in the database and served with
 * ETag / Cache-Control, "restore default branding" (PUT /settings/{id}), and the default
 * overview view in the essentials. The switches also gate what is served outside the REST routes:
 * the OpenID provider's endpoints (a real HTTP front) and the gRPC services of gateways and
 * workers (a real gRPC client against the server and the NOTIFY-fed hub).
 */
import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { freePort } from "@/lib/db/embedded";
import { secret } from "@/lib/config";
import { loadProtos, startGrpcServer, type GrpcServerHandle } from "@/lib/grpc/server";
import { sessionCount, startHub, stopHub, subscriberCount } from "@/lib/gateways/hub";
import { gatewayToken } from "@/lib/gateways/jwt";
import { createLocation } from "@/lib/locations/service";
import { locationSchema } from "@/lib/locations/schema";
import { workerToken } from "@/lib/provisioning/service";
import { POST as appsPost } from "@/app/api/v1/oauth/route";
import { startOidcServer } from "@/tests/oidc-server";
import pl from "@/messages/pl.json";
import en from "@/messages/en.json";
import { OPERATIONS } from "@/lib/openapi/operations";
import { MODULE_DISABLED_MSG, MODULE_PREFIXES, moduleOfPath, type ModuleName } from "@/lib/auth/modules";
import { GET as logoGet, POST as logoPost, DELETE as logoDelete } from "@/app/api/v1/branding/logo/[kind]/route";
import { PUT as restorePut } from "@/app/api/v1/settings/[id]/route";
import { GET as essentialsGet } from "@/app/api/v1/settings_essentials/route";
import { PATCH as settingsPatch } from "@/app/api/v1/settings/route";
import { call, createUser, query, signIn, type Handler, type Jar } from "@/tests/helpers";

let admin: Jar;
let user: Jar;

beforeAll(async () => {
  await createUser({ username: "glob-admin", isAdmin: true });
  await createUser({ username: "glob-user" });
  admin = await signIn("glob-admin");
  user = await signIn("glob-user");
});

// ------------------------------------------------------------------ module switches

const API_DIR = fileURLToPath(new URL("../../app/api/v1/", import.meta.url));

function routeFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...routeFiles(p));
    else if (e.name === "route.ts") out.push(p);
  }
  return out;
}

function apiPath(file: string): string {
  return `/${relative(API_DIR, file)
    .split(sep)
    .slice(0, -1)
    .map((s) => s.replace(/^\[\[?(?:\.\.\.)?([^\]]+)\]\]?$/, "{$1}"))
    .join("/")}`;
}

const COLUMN: Record<ModuleName, string> = { wireguard: "wireguard_enabled", openid: "openid_enabled", webhooks: "webhooks_enabled", worker: "worker_enabled" };
const FILL: Record<string, string> = { id: "999999", username: "glob-user", deviceId: "999999", gatewayId: "999999", client_id: "no-such-app", deliveryId: "00000000-0000-4000-8000-000000000000" };

describe("module switches", () => {
  const files = new Map(routeFiles(API_DIR).map((f) => [apiPath(f), f]));

  it("every module has routes, and only the module's own prefixes belong to it", () => {
    for (const mod of Object.keys(MODULE_PREFIXES) as ModuleName[]) {
      expect(OPERATIONS.some((o) => moduleOfPath(o.path) === mod), mod).toBe(true);
    }
    expect(moduleOfPath("/api/v1/network/1/stats")).toBe("wireguard");
    expect(moduleOfPath("/networks")).toBeNull();
    expect(moduleOfPath("/openid/provider")).toBeNull();
    expect(moduleOfPath("/settings")).toBeNull();
  });

  for (const mod of Object.keys(MODULE_PREFIXES) as ModuleName[]) {
    it(`${mod} off: every one of its routes answers 403 module_disabled to an admin, on again: they answer`, async () => {
      const ops = OPERATIONS.filter((o) => !o.catchAll && moduleOfPath(o.path) === mod);
      await query(`update settings set ${COLUMN[mod]} = false where id = 1`);
      try {
        for (const op of ops) {
          const file = files.get(op.path);
          expect(file, op.path).toBeDefined();
          const handler = (await import(file!))[op.method] as Handler;
          const params: Record<string, string> = {};
          const path = op.path.replace(/\{([^}]+)\}/g, (_, n: string) => (params[n] = FILL[n] ?? "1"));
          const res = await call(handler, { method: op.method, path: `/api/v1${path}`, jar: admin, params, body: op.method === "GET" || op.method === "DELETE" ? undefined : {} });
          expect({ route: `${op.method} ${op.path}`, status: res.status, body: res.json }).toEqual({
            route: `${op.method} ${op.path}`,
            status: 403,
            body: { msg: MODULE_DISABLED_MSG[mod], code: "module_disabled" },
          });
        }
        // Anonymous callers still get 401 first: the switch reveals nothing to them.
        const first = ops[0];
        const anon = await call((await import(files.get(first.path)!))[first.method] as Handler, { method: first.method, path: `/api/v1${first.path.replace(/\{[^}]+\}/g, "1")}` });
        expect(anon.status).toBe(401);
        // The essentials report the switch (the console hides the navigation entries from it).
        expect((await call(essentialsGet)).json[COLUMN[mod]]).toBe(false);
      } finally {
        await query(`update settings set ${COLUMN[mod]} = true where id = 1`);
      }
      // Switched on again, the first GET route of the module answers (no module_disabled).
      const get = ops.find((o) => o.method === "GET" && !o.path.includes("{"));
      if (get) {
        const res = await call((await import(files.get(get.path)!)).GET as Handler, { path: `/api/v1${get.path}`, jar: admin });
        expect(res.json?.code, `${get.path}: ${res.text.slice(0, 200)}`).not.toBe("module_disabled");
        expect(res.status).not.toBe(403);
      }
    });
  }

  it("other routes are not affected by a switched-off module", async () => {
    await query("update settings set wireguard_enabled = false, openid_enabled = false, webhooks_enabled = false, worker_enabled = false where id = 1");
    try {
      const { GET: usersGet } = await import("@/app/api/v1/user/route");
      expect((await call(usersGet, { path: "/api/v1/user", jar: admin })).status).toBe(200);
    } finally {
      await query("update settings set wireguard_enabled = true, openid_enabled = true, webhooks_enabled = true, worker_enabled = true where id = 1");
    }
  });
});

// ------------------------------------------------------------------ outside the REST routes

/** Switch a module through PATCH /settings, as the Settings page does (its event reaches the hub). */
async function switchModule(mod: ModuleName, enabled: boolean) {
  const res = await call(settingsPatch, { method: "PATCH", path: "/api/v1/settings", jar: admin, body: { [COLUMN[mod]]: enabled } });
  expect(res.status, res.text).toBe(200);
  expect(res.json[COLUMN[mod]]).toBe(enabled);
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not reached in time: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("the OpenID apps switch gates the console's OpenID provider", () => {
  let base: { url: string; close: () => Promise<void> };
  let clientId: string;
  const savedUrl = process.env.DEFGUARD_URL;

  beforeAll(async () => {
    base = await startOidcServer();
    process.env.DEFGUARD_URL = base.url;
    const app = await call(appsPost, { method: "POST", jar: admin, body: { name: "Wiki", redirect_uri: ["https://wiki.example.org/callback"], scope: ["openid", "profile"] } });
    expect(app.status, app.text).toBe(201);
    clientId = app.json.client_id;
  });
  afterAll(async () => {
    await query("update settings set openid_enabled = true where id = 1");
    await base?.close();
    if (savedUrl === undefined) delete process.env.DEFGUARD_URL;
    else process.env.DEFGUARD_URL = savedUrl;
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${base.url}${path}`, { headers, redirect: "manual" });
  const post = (path: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${base.url}${path}`, { method: "POST", body, headers: { "content-type": "application/x-www-form-urlencoded", ...headers }, redirect: "manual" });
  const authorize = `/api/v1/oauth/authorize?${new URLSearchParams({ client_id: "CLIENT", response_type: "code", scope: "openid", redirect_uri: "https://wiki.example.org/callback", state: "s1" })}`;
  const payloads = async () => Number((await query<{ n: string }>("select count(*) n from oidc_payloads"))[0].n);

  it("off: every endpoint refuses in OAuth's terms, pages in the browser's language, nothing is stored; on again: served without a restart", async () => {
    const on = await get("/.well-known/openid-configuration");
    expect(on.status).toBe(200);
    const discovery = await on.json();
    expect(discovery.authorization_endpoint).toBe(`${base.url}/api/v1/oauth/authorize`);

    await switchModule("openid", false);
    const before = await payloads();
    const refusal = { error: "access_denied", error_description: MODULE_DISABLED_MSG.openid };
    const programs: [string, () => Promise<Response>][] = [
      ["discovery", () => get("/.well-known/openid-configuration")],
      ["JWKS", () => get("/api/v1/oauth/discovery/keys")],
      ["token", () => post("/api/v1/oauth/token", `grant_type=authorization_code&code=abc&redirect_uri=https%3A%2F%2Fwiki.example.org%2Fcallback&client_id=${clientId}`)],
      ["userinfo", () => get("/api/v1/oauth/userinfo", { authorization: "Bearer abc" })],
      ["revocation", () => post("/api/v1/oauth/revoke", `token=abc&client_id=${clientId}`)],
    ];
    for (const [name, send] of programs) {
      const res = await send();
      expect({ name, status: res.status, type: res.headers.get("content-type"), body: await res.json() }).toEqual({ name, status: 403, type: "application/json", body: refusal });
    }

    const browserPaths = [authorize.replace("CLIENT", clientId), "/api/v1/oauth/logout", "/api/v1/oauth/interaction/some-uid"];
    for (const path of browserPaths) {
      const res = await get(path);
      const page = await res.text();
      expect({ path, status: res.status, type: res.headers.get("content-type") }).toEqual({ path, status: 403, type: "text/html; charset=utf-8" });
      expect(page).toContain(en.oidcProvider.moduleDisabled);
      expect(page).toContain(`<code id="error">access_denied</code>`);
      expect(res.headers.get("location")).toBeNull();
    }
    const polish = await (await get(authorize.replace("CLIENT", clientId), { "accept-language": "pl" })).text();
    expect(polish).toContain(pl.oidcProvider.moduleDisabled);
    expect(polish).toContain(`lang="pl"`);

    // defguard's consent decision, posted by the console's own web client: the REST gate's answer.
    const decision = await fetch(`${base.url}${authorize.replace("CLIENT", clientId)}&allow=true`, { method: "POST", headers: { cookie: Object.entries(admin).map(([k, v]) => `${k}=${v}`).join("; ") }, redirect: "manual" });
    expect(decision.status).toBe(403);
    expect(await decision.json()).toEqual({ msg: MODULE_DISABLED_MSG.openid, code: "module_disabled" });
    expect(await payloads()).toBe(before);

    // Switched on again by another console process (straight in the database, no event here):
    // the switch is read per request, so the provider answers at once.
    await query("update settings set openid_enabled = true where id = 1");
    expect((await get("/.well-known/openid-configuration")).status).toBe(200);
    expect((await get("/api/v1/oauth/discovery/keys")).status).toBe(200);
    const flow = await get(authorize.replace("CLIENT", clientId));
    expect(flow.status).toBe(303);
    expect(flow.headers.get("location")).toMatch(/\/api\/v1\/oauth\/interaction\//);
  });
});

describe("the WireGuard and provisioning switches gate the gRPC services", () => {
  let server: GrpcServerHandle;
  let gateway: any;
  let sync: any;
  let worker: any;
  let locationId: number;
  let token: string;

  const md = (auth: string, hostname = "gw-switch") => {
    const m = new grpc.Metadata();
    m.set("authorization", auth);
    m.set("hostname", hostname);
    return m;
  };
  const unary = (client: any, method: string, req: unknown, m: grpc.Metadata) =>
    new Promise<{ err: grpc.ServiceError | null; value: any }>((res) => client[method](req, m, (err: grpc.ServiceError | null, value: any) => res({ err, value })));
  const PERMISSION_DENIED = (mod: ModuleName) => ({ code: grpc.status.PERMISSION_DENIED, details: MODULE_DISABLED_MSG[mod] });
  const status = (e: grpc.ServiceError | null) => (e ? { code: e.code, details: e.details } : null);

  /** An Updates stream and what it got: messages, errors, its end. */
  function openUpdates(client: any, hostname: string) {
    const seen = { data: 0, errors: [] as grpc.ServiceError[], ended: false };
    const stream = client.Updates({}, md(token, hostname));
    stream.on("data", () => seen.data++);
    stream.on("error", (e: grpc.ServiceError) => seen.errors.push(e));
    stream.on("end", () => (seen.ended = true));
    return { stream, seen };
  }

  beforeAll(async () => {
    await startHub();
    server = await startGrpcServer("127.0.0.1", await freePort());
    const protos = loadProtos();
    const target = `127.0.0.1:${server.port}`;
    gateway = new (protos.gateway.GatewayService as any)(target, grpc.credentials.createInsecure());
    sync = new (protos.gatewaysync.GatewaySyncService as any)(target, grpc.credentials.createInsecure());
    worker = new (protos.worker.WorkerService as any)(target, grpc.credentials.createInsecure());
    locationId = (await createLocation({ userId: null, username: "test", ip: null }, locationSchema.parse({ name: "Switch HQ", address: "198.51.100.1/24", endpoint: "vpn.example.com", port: 51820 }))).id;
    token = gatewayToken(locationId, secret("gatewaySecret"));
  });
  afterAll(async () => {
    await query("update settings set wireguard_enabled = true, worker_enabled = true where id = 1");
    gateway?.close();
    sync?.close();
    worker?.close();
    await server?.stop();
    await stopHub();
  });

  it("WireGuard off: open gateway streams are told once with PERMISSION_DENIED naming the module, new calls are refused; on again: served without a restart", async () => {
    expect((await unary(gateway, "Config", {}, md(token))).err).toBeNull();
    const updates = openUpdates(gateway, "gw-switch");
    const revisioned = openUpdates(sync, "gw-switch-sync");
    let statsStatus: grpc.ServiceError | null | undefined;
    const stats = gateway.Stats(md(token, "gw-switch"), (err: grpc.ServiceError | null) => (statsStatus = err));
    await until(() => subscriberCount(locationId) === 2 && sessionCount(locationId) === 3, "two update streams and a statistics stream held");

    await switchModule("wireguard", false);
    await until(() => updates.seen.errors.length > 0 && revisioned.seen.errors.length > 0 && statsStatus !== undefined, "every open call told");
    for (const s of [updates, revisioned]) {
      expect(s.seen.errors.map(status)).toEqual([PERMISSION_DENIED("wireguard")]);
      expect(s.seen.data).toBe(0);
    }
    expect(status(statsStatus!)).toEqual(PERMISSION_DENIED("wireguard"));
    expect(sessionCount(locationId)).toBe(0);
    stats.end();

    // New calls of both gateway services are refused, after the token check (a bad token learns
    // nothing); a gateway retrying does not fill the log: one line for the location.
    const warn = vi.spyOn(console, "warn");
    expect(status((await unary(gateway, "Config", {}, md(token))).err)).toEqual(PERMISSION_DENIED("wireguard"));
    expect(status((await unary(sync, "Config", {}, md(token))).err)).toEqual(PERMISSION_DENIED("wireguard"));
    expect(status((await unary(sync, "Applied", { location_id: locationId, revision: 1, source: "CONFIG" }, md(token))).err)).toEqual(PERMISSION_DENIED("wireguard"));
    const refusalLines = warn.mock.calls.map((c) => String(c[0])).filter((l) => l.includes(MODULE_DISABLED_MSG.wireguard));
    warn.mockRestore();
    expect(refusalLines.length).toBeLessThanOrEqual(1);
    expect((await unary(gateway, "Config", {}, md("garbage"))).err?.code).toBe(grpc.status.UNAUTHENTICATED);
    const late = openUpdates(gateway, "gw-late");
    await until(() => late.seen.errors.length > 0, "a new stream refused");
    expect(late.seen.errors.map(status)).toEqual([PERMISSION_DENIED("wireguard")]);
    expect(await query("select 1 from gateways where hostname = 'gw-late'")).toHaveLength(0);
    expect(subscriberCount(locationId)).toBe(0);

    // On again (the same switch, read per call): served, no restart.
    await switchModule("wireguard", true);
    const cfg = await unary(gateway, "Config", {}, md(token));
    expect(cfg.err).toBeNull();
    expect(cfg.value.addresses).toEqual(["198.51.100.1/24"]);
    const again = openUpdates(gateway, "gw-switch");
    await until(() => subscriberCount(locationId) === 1, "a new stream held");
    expect(again.seen.errors).toEqual([]);
    again.stream.cancel();
    await until(() => subscriberCount(locationId) === 0, "the stream released");
  });

  it("provisioning off: worker calls answer PERMISSION_DENIED naming the module and change nothing; on again: served", async () => {
    const wt = workerToken("glob-admin");
    await switchModule("worker", false);
    for (const [method, req] of [["RegisterWorker", { id: "station-9" }], ["GetJob", { id: "station-9" }], ["SetJobDone", { id: "station-9", job_id: 1, success: true }]] as const) {
      expect({ method, status: status((await unary(worker, method, req, md(wt))).err) }).toEqual({ method, status: PERMISSION_DENIED("worker") });
    }
    expect((await unary(worker, "RegisterWorker", { id: "station-9" }, md("garbage"))).err?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(await query("select 1 from provisioning_workers where id = 'station-9'")).toHaveLength(0);

    await query("update settings set worker_enabled = true where id = 1");
    expect((await unary(worker, "RegisterWorker", { id: "station-9" }, md(wt))).err).toBeNull();
    expect(await query("select 1 from provisioning_workers where id = 'station-9'")).toHaveLength(1);
  });
});

// ------------------------------------------------------------------ logos

/** A real PNG of w x h pixels (grey, 8-bit). */
function png(w: number, h: number): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = crcTable[(c ^ x) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const raw = Buffer.alloc((w + 1) * h, 0x80);
  for (let y = 0; y < h; y++) raw[y * (w + 1)] = 0;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}

/** A minimal JPEG header with a start-of-frame of w x h (enough for the size check). */
function jpeg(w: number, h: number): Buffer {
  const sof = Buffer.from([0xff, 0xc0, 0x00, 0x11, 0x08, h >> 8, h & 0xff, w >> 8, w & 0xff, 0x03, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
  return Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from("JFIF\0\x01\x01\0\0\x01\0\x01\0\0", "latin1"), sof, Buffer.from([0xff, 0xd9])]);
}

const dataUrl = (type: string, b: Buffer | string) => `data:${type};base64,${Buffer.from(b).toString("base64")}`;
const upload = (kind: string, image: string, jar = admin) => call(logoPost, { method: "POST", path: `/api/v1/branding/logo/${kind}`, params: { kind }, jar, body: { image } });
const settingsRow = async () => (await query<{ main_logo_url: string; nav_logo_url: string; instance_name: string }>("select main_logo_url, nav_logo_url, instance_name from settings where id = 1"))[0];
const logoCount = async () => Number((await query<{ n: string }>("select count(*) n from branding_logos"))[0].n);

describe("logo upload", () => {
  it("a PNG main logo is stored, the setting points at it, and it is served with ETag and caching headers", async () => {
    const image = png(200, 80);
    const res = await upload("main", dataUrl("image/png", image));
    expect(res.status, res.text).toBe(200);
    expect(res.json.main_logo_url).toMatch(/^\/api\/v1\/branding\/logo\/main\?v=[0-9a-f]{16}$/);
    expect((await call(essentialsGet)).json.main_logo_url).toBe(res.json.main_logo_url);

    const url = res.json.main_logo_url as string;
    const got = await call(logoGet, { path: url, params: { kind: "main" } });
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toBe("image/png");
    expect(got.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(got.headers.get("x-content-type-options")).toBe("nosniff");
    const etag = got.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const bytes = Buffer.from(await (await logoGet(new Request(`http://localhost${url}`), { params: Promise.resolve({ kind: "main" }) })).arrayBuffer());
    expect(bytes.equals(image)).toBe(true);

    // Without the version (an old address): revalidated every time, 304 when unchanged.
    const plain = await call(logoGet, { path: "/api/v1/branding/logo/main", params: { kind: "main" } });
    expect(plain.headers.get("cache-control")).toBe("public, no-cache");
    const again = await call(logoGet, { path: "/api/v1/branding/logo/main", params: { kind: "main" }, headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
  });

  it("a JPEG navigation logo and a plain SVG are accepted", async () => {
    const j = await upload("nav", dataUrl("image/jpeg", jpeg(64, 64)));
    expect(j.status, j.text).toBe(200);
    const svg = `<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><defs><linearGradient id="g"><stop offset="0" stop-color="#000"/></linearGradient></defs><rect width="10" height="10" fill="url(#g)"/><use href="#g"/></svg>`;
    const s = await upload("nav", dataUrl("image/svg+xml", svg));
    expect(s.status, s.text).toBe(200);
    const served = await call(logoGet, { path: "/api/v1/branding/logo/nav", params: { kind: "nav" } });
    expect(served.headers.get("content-type")).toBe("image/svg+xml");
    expect(served.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(served.text).toBe(svg);
  });

  const refused: [string, string, string, RegExp][] = [
    ["oversized file", "main", dataUrl("image/png", Buffer.concat([png(10, 10), Buffer.alloc(300 * 1024)])), /at most 256 KB/],
    ["main logo over 250x100 px", "main", dataUrl("image/png", png(251, 100)), /at most 250×100 px; this image is 251×100 px/],
    ["nav logo over 100x100 px", "nav", dataUrl("image/jpeg", jpeg(100, 101)), /at most 100×100 px/],
    ["not an image", "main", dataUrl("image/png", "just some text, not a picture"), /PNG, JPEG or SVG/],
    ["a GIF", "main", dataUrl("image/gif", "GIF89a\x01\x00\x01\x00"), /PNG, JPEG or SVG/],
    ["label and content disagree", "main", dataUrl("image/jpeg", png(10, 10)), /is a PNG image but was sent as image\/jpeg/],
    ["not a data URL", "main", "https://example.com/logo.png", /base64 data URL/],
    ["SVG with a script", "nav", dataUrl("image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), /<script>/],
    ["SVG with an event handler", "nav", dataUrl("image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg"><rect onload="alert(1)"/></svg>`), /event handlers/],
    ["SVG loading an outside image", "nav", dataUrl("image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg"><image href="https://evil.example/x.png"/></svg>`), /<image>/],
    ["SVG linking outside", "nav", dataUrl("image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg"><use href="https://evil.example/x.svg#a"/></svg>`), /own elements/],
    ["SVG with foreign content", "nav", dataUrl("image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><div/></foreignObject></svg>`), /<foreignObject>/],
    ["SVG with entities", "nav", dataUrl("image/svg+xml", `<!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg"/>`), /DOCTYPE/],
    ["SVG with an outside url()", "nav", dataUrl("image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg"><rect style="fill:url(https://evil.example/a)"/></svg>`), /url\(#/],
  ];
  it.each(refused)("refused with 400 {msg, field} and nothing changes: %s", async (_name, kind, image, msg) => {
    const before = { row: await settingsRow(), logos: await query("select kind, etag from branding_logos order by kind") };
    const res = await upload(kind, image);
    expect(res.status, res.text).toBe(400);
    expect(res.json.field).toBe("image");
    expect(res.json.msg).toMatch(msg);
    expect({ row: await settingsRow(), logos: await query("select kind, etag from branding_logos order by kind") }).toEqual(before);
  });

  it("an unknown kind is 404 {msg}; ordinary users may not upload; a missing logo is 404 {msg}", async () => {
    expect((await upload("footer", dataUrl("image/png", png(10, 10)))).status).toBe(404);
    expect((await upload("main", dataUrl("image/png", png(10, 10)), user)).status).toBe(403);
    const del = await call(logoDelete, { method: "DELETE", path: "/api/v1/branding/logo/nav", params: { kind: "nav" }, jar: admin });
    expect(del.status).toBe(200);
    expect(del.json.nav_logo_url).toBe("");
    const missing = await call(logoGet, { path: "/api/v1/branding/logo/nav", params: { kind: "nav" } });
    expect(missing.status).toBe(404);
    expect(missing.json.msg).toMatch(/no navigation logo/);
    expect((await call(essentialsGet)).json.nav_logo_url).toBe("/svg/defguard-nav-logo.svg");
  });

  it("PUT /settings/{id} restores the default branding: name, both logos, uploaded files gone, one activity entry", async () => {
    await call(settingsPatch, { method: "PATCH", path: "/api/v1/settings", jar: admin, body: { instance_name: "Acme VPN" } });
    expect((await upload("nav", dataUrl("image/png", png(50, 50)))).status).toBe(200);
    expect(await logoCount()).toBeGreaterThan(0);
    const res = await call(restorePut, { method: "PUT", path: "/api/v1/settings/1", params: { id: "1" }, jar: admin });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ instance_name: "Defguard", main_logo_url: "", nav_logo_url: "" });
    expect(await logoCount()).toBe(0);
    expect((await call(essentialsGet)).json).toMatchObject({ instance_name: "Defguard", main_logo_url: "/svg/logo-defguard-white.svg", nav_logo_url: "/svg/defguard-nav-logo.svg" });
    const log = await query("select 1 from activity_log where event = 'settings_default_branding_restored'");
    expect(log).toHaveLength(1);
    expect((await call(restorePut, { method: "PUT", path: "/api/v1/settings/1", params: { id: "1" }, jar: user })).status).toBe(403);
  });
});

describe("default overview view", () => {
  it("is saved through PATCH /settings and read by everyone from the essentials; a bad value is 400 naming the field", async () => {
    expect((await call(essentialsGet)).json.default_overview_view).toBe("grid");
    const ok = await call(settingsPatch, { method: "PATCH", path: "/api/v1/settings", jar: admin, body: { default_overview_view: "list" } });
    expect(ok.status, ok.text).toBe(200);
    expect((await call(essentialsGet)).json.default_overview_view).toBe("list");
    const bad = await call(settingsPatch, { method: "PATCH", path: "/api/v1/settings", jar: admin, body: { default_overview_view: "table", instance_name: "Changed" } });
    expect(bad.status).toBe(400);
    expect(bad.json.field).toBe("default_overview_view");
    expect((await settingsRow()).instance_name).not.toBe("Changed");
    expect((await call(essentialsGet)).json.default_overview_view).toBe("list");
  });
});
