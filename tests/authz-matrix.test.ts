/**
 * The authorization matrix (issue requirement): every /api/v1 route registered so far, called
 * as anonymous, an ordinary user, an admin, an ordinary user acting on another user (for
 * self-or-admin routes), an admin whose MFA step is still pending and, under the require-MFA
 * policy, a user without MFA. Each must get the answer its access level promises.
 *
 * The routes are the rows of OPERATIONS (lib/openapi/operations.ts), the one route declaration
 * that also makes the OpenAPI document. The expected answer per caller is derived from a row's
 * access level (EXPECTED_BY_ACCESS) and its `withoutMfa` flag. The test fails when
 * - a route file exports a handler with no OPERATIONS row (and vice versa);
 * - a handler's `.access` (or `.self`, `.allowWithoutMfa`) differs from its row;
 * - a caller gets another answer than its row promises.
 *
 * "allow" means the auth layer let the request through: anything but 401/403/5xx (a 400 from
 * validation of the minimal `{}` body, or a 404, is fine). Denials are compared with their
 * status and message, so a 403 for a missing anti-forgery token does not pass for "admin only".
 */
import { readdirSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as authPost } from "@/app/api/v1/auth/route";
import type { Access } from "@/lib/http/route";
import { OPERATIONS, type Operation } from "@/lib/openapi/operations";
import { sha256hex } from "@/lib/crypto";
import { SESSION_COOKIE } from "@/lib/auth/session";
import { call, createUser, DEFAULT_PASSWORD, jarFrom, query, signIn, type Handler, type Jar } from "./helpers";

// ------------------------------------------------------------------------------ the table

/**
 * The routes come from the one declaration, OPERATIONS (lib/openapi/operations.ts): its access
 * level and `withoutMfa` flag decide the answer every caller must get.
 */
const ROUTES: Record<string, Pick<Operation, "access" | "withoutMfa">> = Object.fromEntries(
  OPERATIONS.map((o) => [`${o.method} ${o.path}`, { access: o.access, withoutMfa: o.withoutMfa }]),
);

/**
 * Values for path parameters that are not a username or a group name. Ids point at nothing,
 * so a call the auth layer lets through ends in 404/400, never in a change. The handler's
 * `self` parameter and {username} get the caller's (or the target's) username instead; {name}
 * a throwaway group. Add a value with each new parameter name.
 */
const PARAM_VALUES: Record<string, string> = { kind: "main", id: "999999", name: "no-such-provider", deviceId: "999999", keyId: "999999", gatewayId: "999999", client_id: "no-such-app", deliveryId: "00000000-0000-4000-8000-000000000000", path: "no/such/endpoint" };

// ------------------------------------------------------------------ answers per access level

type Role = "anonymous" | "user" | "other" | "admin" | "pending" | "noMfa";

/**
 * anonymous: no cookies. user: an ordinary user (on routes with {username} or a `self`
 * parameter: themselves). other: an ordinary user on another user (self-or-admin routes only).
 * admin: an admin (on routes with {username}: another, throwaway user).
 * pending: an admin who passed the password step of an MFA sign-in (POST /auth answered 201).
 * noMfa: the ordinary user while settings.require_mfa is on and they have no MFA.
 */
type Expected = Record<Role, string>;

const ALLOW = "allow";
const NOT_SIGNED_IN = "401 not signed in";
const SECOND_FACTOR = "401 second authentication factor required";
const NOT_ADMIN = "403 admin access required";
const NOT_SELF = "403 access denied";
const MFA_SETUP = "403 MFA setup required: turn on a second factor in your profile first";
const NOT_APPLICABLE = "n/a";

const EXPECTED_BY_ACCESS: Record<Access, Expected> = {
  public: { anonymous: ALLOW, user: ALLOW, other: NOT_APPLICABLE, admin: ALLOW, pending: ALLOW, noMfa: ALLOW },
  session: { anonymous: NOT_SIGNED_IN, user: ALLOW, other: NOT_APPLICABLE, admin: ALLOW, pending: ALLOW, noMfa: ALLOW },
  user: { anonymous: NOT_SIGNED_IN, user: ALLOW, other: NOT_APPLICABLE, admin: ALLOW, pending: SECOND_FACTOR, noMfa: MFA_SETUP },
  admin: { anonymous: NOT_SIGNED_IN, user: NOT_ADMIN, other: NOT_APPLICABLE, admin: ALLOW, pending: SECOND_FACTOR, noMfa: MFA_SETUP },
  "self-or-admin": { anonymous: NOT_SIGNED_IN, user: ALLOW, other: NOT_SELF, admin: ALLOW, pending: SECOND_FACTOR, noMfa: MFA_SETUP },
};

function expectedFor(key: string): Expected {
  const row = ROUTES[key];
  const base = { ...EXPECTED_BY_ACCESS[row.access] };
  if (row.withoutMfa) base.noMfa = ALLOW;
  return base;
}

// --------------------------------------------------------------------- route discovery

const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
const API_DIR = fileURLToPath(new URL("../app/api/v1/", import.meta.url));

type RouteFn = Handler & { access?: Access; self?: string; allowWithoutMfa?: boolean; enterprise?: boolean; fixedParams?: Record<string, string> };

function routeFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...routeFiles(p));
    else if (/^route\.(ts|tsx|js|jsx|mjs)$/.test(e.name)) out.push(p);
  }
  return out;
}

/** app/api/v1/user/[username]/route.ts → /user/{username}; route groups "(x)" vanish from URLs. */
function apiPath(file: string): string {
  const segments = relative(API_DIR, file).split(sep).slice(0, -1);
  const parts = segments
    .filter((s) => !/^\(.*\)$/.test(s))
    .map((s) => s.replace(/^\[\[?(?:\.\.\.)?([^\]]+)\]\]?$/, "{$1}"));
  return `/${parts.join("/")}`;
}

interface Discovered {
  key: string;
  method: string;
  path: string;
  file: string;
  handler: RouteFn;
}

const discovered: Discovered[] = [];
const byKey = new Map<string, Discovered>();

beforeAll(async () => {
  for (const file of routeFiles(API_DIR).sort()) {
    const mod = (await import(file)) as Record<string, unknown>;
    for (const method of HTTP_METHODS) {
      if (typeof mod[method] !== "function") continue;
      const d = { key: `${method} ${apiPath(file)}`, method, path: apiPath(file), file, handler: mod[method] as RouteFn };
      discovered.push(d);
      byKey.set(d.key, d);
    }
  }
});

const opKey = (o: { method: string; path: string }) => `${o.method} ${o.path}`;
const sorted = (xs: Iterable<string>) => [...xs].sort();

describe("the route table", () => {
  it("finds the route files (sanity check of the discovery itself)", () => {
    expect(discovered.length).toBeGreaterThanOrEqual(40);
    expect(byKey.has("GET /user/{username}")).toBe(true);
    expect(byKey.has("DELETE /group/{name}/user/{username}")).toBe(true);
  });

  it("every exported handler has an OPERATIONS row and every OPERATIONS row a handler", () => {
    const ops = OPERATIONS.map(opKey);
    expect(new Set(ops).size, "duplicate OPERATIONS rows").toBe(ops.length);
    expect(sorted(discovered.map((d) => d.key))).toEqual(sorted(ops));
  });

  it("every handler is made by route() and its access level matches OPERATIONS", () => {
    const mismatches: string[] = [];
    for (const d of discovered) {
      const op = OPERATIONS.find((o) => opKey(o) === d.key);
      if (typeof d.handler.access !== "string") mismatches.push(`${d.key}: not made by route() (no .access)`);
      if (op && d.handler.access !== op.access) mismatches.push(`${d.key}: handler ${d.handler.access}, OPERATIONS ${op.access}`);
    }
    expect(mismatches).toEqual([]);
  });

  it("self-or-admin handlers name a path parameter that exists in their path (or that their static path fixes)", () => {
    for (const d of discovered.filter((x) => x.handler.access === "self-or-admin")) {
      expect(d.handler.self, d.key).toBeTruthy();
      if (d.handler.fixedParams?.[d.handler.self!] !== undefined) continue;
      expect(d.path, d.key).toContain(`{${d.handler.self}}`);
    }
  });

  it("alias rows (a static path standing for a dynamic one) are served by the aliased row's handler, parameter fixed", () => {
    const aliases = OPERATIONS.filter((o) => o.aliasOf);
    expect(aliases.length).toBeGreaterThan(0);
    for (const o of aliases) {
      const d = byKey.get(opKey(o))!;
      const of = byKey.get(`${o.method} ${o.aliasOf}`);
      expect(of, `${opKey(o)}: no ${o.method} ${o.aliasOf}`).toBeTruthy();
      expect(d.handler.fixedParams, opKey(o)).toBeTruthy();
      expect({ access: d.handler.access, self: d.handler.self, mfa: d.handler.allowWithoutMfa }, opKey(o)).toEqual({ access: of!.handler.access, self: of!.handler.self, mfa: of!.handler.allowWithoutMfa });
      expect(OPERATIONS.find((x) => opKey(x) === `${o.method} ${o.aliasOf}`)?.access).toBe(o.access);
    }
  });

  it("allowWithoutMfa is set exactly on the routes OPERATIONS marks withoutMfa", () => {
    const actual = discovered.filter((d) => d.handler.allowWithoutMfa === true).map((d) => d.key);
    const wanted = Object.entries(ROUTES)
      .filter(([, r]) => r.withoutMfa)
      .map(([k]) => k);
    expect(sorted(actual)).toEqual(sorted(wanted));
    // Only user-level routes may skip the MFA policy; admin routes never.
    for (const k of actual) expect(ROUTES[k]?.access, k).toBe("user");
  });

  it("the licence gate (route option enterprise) is set exactly on the routes OPERATIONS marks enterprise", () => {
    const actual = discovered.filter((d) => d.handler.enterprise === true).map((d) => d.key);
    const wanted = OPERATIONS.filter((o) => o.enterprise).map(opKey);
    expect(wanted.length).toBeGreaterThan(0);
    expect(sorted(actual)).toEqual(sorted(wanted));
    // A public route cannot be gated before the caller is known.
    for (const o of OPERATIONS.filter((x) => x.enterprise)) expect(o.access, opKey(o)).not.toBe("public");
  });
});

// ---------------------------------------------------------------------------- callers

const USER = "matrix-user";
const ADMIN = "matrix-admin";
const PENDING = "matrix-pending";

const jars: Partial<Record<"user" | "admin" | "pending", Jar>> = {};

async function pendingSignIn(): Promise<Jar> {
  const res = await call(authPost, { method: "POST", path: "/api/v1/auth", body: { username: PENDING, password: DEFAULT_PASSWORD } });
  expect(res.status, `password step of ${PENDING}: ${res.text}`).toBe(201);
  return jarFrom(res);
}

async function freshJar(who: "user" | "admin" | "pending"): Promise<Jar> {
  if (who === "pending") return pendingSignIn();
  return signIn(who === "user" ? USER : ADMIN);
}

/** The caller's jar, signing in again when a previous call (e.g. POST /auth/logout) ended the session. */
async function jarOf(who: "user" | "admin" | "pending"): Promise<Jar> {
  const jar = jars[who];
  if (jar) {
    const alive = await query("select 1 from sessions where id = $1", [sha256hex(jar[SESSION_COOKIE])]);
    if (alive.length) return jar;
  }
  jars[who] = await freshJar(who);
  return jars[who]!;
}

let counter = 0;

/** A throwaway user in a throwaway group, so destructive calls never hit the callers. */
async function disposable(): Promise<{ username: string; group: string }> {
  counter += 1;
  const username = `target${counter}`;
  const group = `group${counter}`;
  await createUser({ username, password: null, groups: [group] });
  return { username, group };
}

function fillPath(path: string, values: Record<string, string>): { url: string; params: Record<string, string> } {
  const params: Record<string, string> = {};
  const url = path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`no value for path parameter {${name}} of ${path}: add one to PARAM_VALUES`);
    params[name] = values[name];
    return encodeURIComponent(values[name]);
  });
  return { url: `/api/v1${url}`, params };
}

/** Call `key` as `role` and reduce the answer to "allow" or "<status> <msg>". */
async function attempt(key: string, role: Role): Promise<{ outcome: string; detail: string }> {
  const d = byKey.get(key);
  if (!d) throw new Error(`${key} is in OPERATIONS but no route file exports it`);
  const target = await disposable();
  let jar: Jar | undefined;
  let username = target.username;
  if (role === "user" || role === "noMfa") {
    jar = await jarOf("user");
    username = USER;
  } else if (role === "other") {
    jar = await jarOf("user");
  } else if (role === "admin") {
    jar = await jarOf("admin");
  } else if (role === "pending") {
    jar = await jarOf("pending");
    username = PENDING;
  }
  const values: Record<string, string> = { ...PARAM_VALUES, username, name: target.group };
  if (d.handler.self) values[d.handler.self] = username;
  const { url, params } = fillPath(d.path, values);
  const body = d.method === "GET" || d.method === "DELETE" || d.method === "HEAD" ? undefined : {};
  const res = await call(d.handler, { method: d.method, path: url, jar, params, body });
  const denied = res.status === 401 || res.status === 403 || res.status >= 500;
  return {
    outcome: denied ? `${res.status} ${res.json?.msg ?? res.text}` : ALLOW,
    detail: `${role}: ${res.status} ${res.text.slice(0, 160)}`,
  };
}

async function check(key: string, roles: Role[]) {
  const expected = expectedFor(key);
  const want: Partial<Expected> = {};
  const got: Partial<Expected> = {};
  const details: string[] = [];
  for (const role of roles) {
    if (expected[role] === NOT_APPLICABLE) continue;
    want[role] = expected[role];
    const r = await attempt(key, role);
    got[role] = r.outcome;
    details.push(r.detail);
  }
  expect(got, `${key}\n${details.join("\n")}`).toEqual(want);
}

beforeAll(async () => {
  await createUser({ username: USER });
  await createUser({ username: ADMIN, isAdmin: true });
  await createUser({ username: PENDING, isAdmin: true, mfaEnabled: true });
});

// Alias rows are called on the row they alias (their callers would have to be named after the fixed parameter).
const keys = OPERATIONS.filter((o) => !o.aliasOf).map(opKey);
const selfOrAdmin = (k: string) => ROUTES[k].access === "self-or-admin";

describe("every route as anonymous, user, user on another user, admin and MFA-pending admin", () => {
  it("the callers are who the matrix says they are", async () => {
    const { GET: meGet } = await import("@/app/api/v1/me/route");
    const me = await call(meGet, { jar: await jarOf("user") });
    expect(me.json).toMatchObject({ username: USER, is_admin: false });
    const admin = await call(meGet, { jar: await jarOf("admin") });
    expect(admin.json).toMatchObject({ username: ADMIN, is_admin: true });
    const [row] = await query<{ state: string }>("select state from sessions where id = $1", [
      sha256hex((await jarOf("pending"))[SESSION_COOKIE]),
    ]);
    expect(row.state).toBe("password_verified");
  });

  it("covers self-or-admin routes with the other-user caller", () => {
    expect(keys.filter(selfOrAdmin).length).toBeGreaterThan(0);
    for (const k of keys.filter(selfOrAdmin)) expect(expectedFor(k).other).toBe(NOT_SELF);
  });

  it.each(keys)("%s", async (key) => {
    await check(key, ["anonymous", "user", "other", "admin", "pending"]);
  });
});

describe("every route under the require-MFA policy, as a user without MFA", () => {
  beforeAll(async () => {
    await query("update settings set require_mfa = true where id = 1");
  });
  afterAll(async () => {
    await query("update settings set require_mfa = false where id = 1");
  });

  it.each(keys)("%s", async (key) => {
    await check(key, ["noMfa"]);
  });
});
