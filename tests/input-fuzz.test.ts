/**
 * Strict input across the whole API, driven by the route files themselves (as the
 * authorization matrix finds them):
 * - every route with a zod body schema (the wrapper exposes it as `bodySchema`) gets bodies of
 *   wrong types and boundary values, generated with fast-check from the schema's field names;
 *   called as an admin, no answer is a 500, and a refusal (400/404/409/415/422) leaves every
 *   table as it was;
 * - every route with numeric ids answers 404 {msg} for an unknown id and 400 for a malformed one.
 * 401/403/429 answers are not compared: a failed sign-in records the attempt by design.
 */
import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { ZodType } from "zod";
import { createLocation } from "@/lib/locations/service";
import { locationSchema } from "@/lib/locations/schema";
import { sha256hex } from "@/lib/crypto";
import { SESSION_COOKIE } from "@/lib/auth/session";
import { call, createUser, query, signIn, type Handler, type Jar } from "./helpers";

const API_DIR = fileURLToPath(new URL("../app/api/v1/", import.meta.url));
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type RouteFn = Handler & { bodySchema?: ZodType };

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
  const parts = relative(API_DIR, file).split(sep).slice(0, -1).map((s) => s.replace(/^\[([^\]]+)\]$/, "{$1}"));
  return `/${parts.join("/")}`;
}

interface Route {
  key: string;
  method: string;
  path: string;
  handler: RouteFn;
}

const routes: Route[] = [];
let admin: Jar;
let ids: Record<string, string> = {};

/** The top-level field names of a body schema (through transforms and pipes). */
function fieldsOf(schema: ZodType): string[] {
  let s = schema as unknown as { shape?: Record<string, unknown>; def?: { in?: unknown; innerType?: unknown; schema?: unknown } };
  for (let i = 0; i < 10 && s && !s.shape; i++) s = (s.def?.in ?? s.def?.innerType ?? s.def?.schema) as typeof s;
  return s?.shape ? Object.keys(s.shape) : [];
}

const hostile = fc.oneof(
  fc.constantFrom(null, true, false, 0, -1, 1, 1.5, -0, 65535, 65536, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, 1e308, -1e308),
  fc.constantFrom("", " ", "0", "1", "51820", "true", "null", "<b>x</b>", "a\nb", "a\u0000b", "%ZZ", "9".repeat(40), "x".repeat(5000)),
  fc.constantFrom("0.0.0.0/0", "10.1.0.0/24", "::/0", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "admin", "a@b.c"),
  fc.integer(),
  fc.string({ maxLength: 16 }),
  fc.array(fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.constant(null)), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.string({ maxLength: 4 }), fc.integer()), { maxKeys: 2 }),
);

function bodies(fields: string[]) {
  const record = fields.length
    ? fc.record(Object.fromEntries(fields.map((f) => [f, hostile])), { requiredKeys: [] })
    : fc.constant({});
  return fc.oneof(
    { arbitrary: record, weight: 8 },
    { arbitrary: fc.constantFrom<unknown>(null, [], "text", 42, true), weight: 1 },
  );
}

/** Row count and checksum of every table but sessions (their last-seen time moves with each call). */
async function snapshot(): Promise<string> {
  const tables = await query<{ t: string }>(
    "select quote_ident(table_name) t from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' and table_name not in ('sessions') order by 1",
  );
  const parts = tables.map(({ t }) => `select '${t}' || ':' || count(*) || ':' || coalesce(md5(string_agg(x::text, '|' order by x::text)), '') from ${t} x`);
  const rows = await query<{ s: string }>(`select string_agg(s, ',' order by s) s from (${parts.join(" union all ")}) q(s)`);
  return rows[0].s;
}

async function adminJar(): Promise<Jar> {
  const alive = await query("select 1 from sessions where id = $1", [sha256hex(admin[SESSION_COOKIE])]);
  if (!alive.length) admin = await signIn("fuzzadmin");
  return admin;
}

function paramsFor(path: string, mode: "known" | "unknown" | "malformed"): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
    if (name === "username") params[name] = "fuzzuser";
    else if (name === "name") params[name] = "fuzzgroup";
    else params[name] = mode === "unknown" ? "999999" : mode === "malformed" ? "12abc" : (ids[`${path.split("/")[1]}:${name}`] ?? "999999");
  }
  return params;
}

beforeAll(async () => {
  for (const file of routeFiles(API_DIR).sort()) {
    const mod = (await import(file)) as Record<string, unknown>;
    for (const method of METHODS) {
      if (typeof mod[method] === "function") routes.push({ key: `${method} ${apiPath(file)}`, method, path: apiPath(file), handler: mod[method] as RouteFn });
    }
  }
  await createUser({ username: "fuzzadmin", isAdmin: true });
  await createUser({ username: "fuzzuser", groups: ["fuzzgroup"] });
  admin = await signIn("fuzzadmin");
  const loc = await createLocation(
    { userId: null, username: "t", ip: null },
    locationSchema.parse({ name: "Fuzz", address: "10.77.0.1/24", endpoint: "vpn.example.com", port: 51820 }),
  );
  ids = { "network:id": String(loc.id) };
}, 60_000);

describe("wrong types and boundary values in every JSON body", () => {
  it("finds the routes and their body schemas", () => {
    expect(routes.length).toBeGreaterThanOrEqual(40);
    expect(routes.filter((r) => r.handler.bodySchema).length).toBeGreaterThanOrEqual(25);
  });

  // In parts, so each part's timeout stays meaningful as routes are added.
  const PARTS = 4;
  for (let part = 0; part < PARTS; part++) {
    it(`never answers 500, and a refusal changes nothing (part ${part + 1} of ${PARTS})`, { timeout: 120_000 }, async () => {
      const withBody = routes.filter((r) => r.handler.bodySchema).filter((_, i) => i % PARTS === part);
      expect(withBody.length).toBeGreaterThan(0);
      for (const r of withBody) {
        const fields = fieldsOf(r.handler.bodySchema!);
        await fc.assert(
          fc.asyncProperty(bodies(fields), async (body) => {
            // A body that happened to be valid may have turned a policy on; start each from the same settings.
            await query("update settings set require_mfa = false where id = 1");
            const jar = await adminJar();
            const before = await snapshot();
            const res = await call(r.handler, {
              method: r.method,
              path: `/api/v1${r.path}`,
              jar,
              params: paramsFor(r.path, "known"),
              body: JSON.stringify(body),
            });
            expect(res.status, `${r.key} ${JSON.stringify(body).slice(0, 200)} → ${res.text.slice(0, 200)}`).not.toBe(500);
            if ([400, 404, 409, 415, 422].includes(res.status)) {
              expect(typeof res.json?.msg, `${r.key}: ${res.text}`).toBe("string");
              expect(await snapshot(), `${r.key} ${JSON.stringify(body).slice(0, 200)} changed data with ${res.status}`).toBe(before);
            }
          }),
          { numRuns: Number(process.env.FUZZ_RUNS ?? 12), seed: Number(process.env.FUZZ_SEED ?? 20261123) },
        );
      }
    });
  }
});

/** Valid bodies for the routes that take one together with a numeric id (to reach the id lookup). */
const KEY = "xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg=";
function validBody(key: string): unknown | undefined {
  const location = { name: "Other", address: "10.78.0.1/24", endpoint: "vpn.example.com", port: 51820 };
  const bodies: Record<string, unknown> = {
    "PUT /device/{id}": { name: "dev", wireguard_pubkey: KEY },
    "PUT /network/{id}": location,
    "PUT /device/network/{id}": { name: "nd", description: null, location_id: 1, assigned_ips: ["10.77.0.9"], wireguard_pubkey: null },
    "POST /network/{id}/devices": { devices: [{ name: "d", wireguard_pubkey: KEY, user_id: 1, wireguard_ips: ["10.77.0.9"] }] },
    "POST /device/network/ip/{id}": { ips: ["10.77.0.9"] },
    "POST /user/{username}/security_key/{keyId}/rename": { name: "key" },
  };
  return bodies[key];
}

describe("ids in the path", () => {
  // DELETE /worker/{id} names a worker (defguard's worker ids are names), not a number.
  const NAMED = new Set(["DELETE /worker/{id}"]);
  const numeric = (path: string) => /\{(id|deviceId|keyId|gatewayId)\}/.test(path);

  it("an unknown id answers 404 {msg}; a malformed one 400", async () => {
    const checked: string[] = [];
    const wrong: string[] = [];
    for (const r of routes.filter((x) => numeric(x.path) && !NAMED.has(x.key))) {
      const jar = await adminJar();
      const body = r.handler.bodySchema ? validBody(r.key) : undefined;
      if (!r.handler.bodySchema || body !== undefined) {
        const res = await call(r.handler, { method: r.method, path: `/api/v1${r.path}`, jar, params: paramsFor(r.path, "unknown"), body });
        if (res.status !== 404 || typeof res.json?.msg !== "string") wrong.push(`${r.key} unknown id → ${res.status} ${res.text}`);
        checked.push(r.key);
      }
      const bad = await call(r.handler, { method: r.method, path: `/api/v1${r.path}`, jar, params: paramsFor(r.path, "malformed"), body: r.handler.bodySchema ? (validBody(r.key) ?? {}) : undefined });
      if (bad.status !== 400) wrong.push(`${r.key} malformed id → ${bad.status} ${bad.text}`);
    }
    expect(wrong).toEqual([]);
    expect(checked.length).toBeGreaterThanOrEqual(10);
  });
});

describe("numbers are JSON numbers (no coercion of strings, booleans or null)", () => {
  it.each([
    ["PATCH /settings", { smtp_port: "25" }, "smtp_port"],
    ["PATCH /settings", { smtp_port: true }, "smtp_port"],
    ["PATCH /settings", { gateway_disconnect_notifications_inactivity_threshold: "10" }, "gateway_disconnect_notifications_inactivity_threshold"],
    ["PATCH /settings", { gateway_disconnect_notifications_inactivity_threshold: null }, "gateway_disconnect_notifications_inactivity_threshold"],
    ["POST /device/network", { name: "nd", location_id: "1", assigned_ips: "10.77.0.9", wireguard_pubkey: KEY }, "location_id"],
    ["POST /device/network", { name: "nd", location_id: true, assigned_ips: "10.77.0.9", wireguard_pubkey: KEY }, "location_id"],
  ])("%s %j → 400 naming the field, nothing changed", async (key, body, field) => {
    const r = routes.find((x) => x.key === key)!;
    const before = await snapshot();
    const res = await call(r.handler, { method: r.method, path: `/api/v1${r.path}`, jar: await adminJar(), body });
    expect(res.status, res.text).toBe(400);
    expect(res.json.field).toBe(field);
    expect(await snapshot()).toBe(before);
  });
});
