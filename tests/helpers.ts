/**
 * Helpers for integration tests: call route handlers directly (no Next server), create users
 * in the test database, sign in. Every call goes through the real route wrapper and a real
 * PostgreSQL (the per-file database of tests/setup/per-file.ts).
 */
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { getDb, getPool } from "@/lib/db";
import { groupUsers, groups, users } from "@/lib/db/schema";
import { hashPassword } from "@/lib/auth/password";
import { SESSION_COOKIE, XSRF_COOKIE } from "@/lib/auth/session";
import { POST as authPost } from "@/app/api/v1/auth/route";

export { bootstrap } from "@/lib/bootstrap";
export { createTestDatabase, useFreshDatabase, urlForDatabase } from "./setup/db";

/** A Next.js App Router handler as exported by app/api/v1/**\/route.ts. */
export type Handler = (req: Request, ctx: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;

/** Cookie name → value, as a browser would send them. */
export type Jar = Record<string, string>;

export interface SetCookie {
  name: string;
  value: string;
  /** Attribute names lower-cased; flag attributes map to `true`. */
  attributes: Record<string, string | true>;
  httpOnly: boolean;
  secure: boolean;
  sameSite: string | undefined;
  path: string | undefined;
  maxAge: number | undefined;
}

export interface CallOptions {
  method?: string;
  /** Path (with query) under http://localhost, default "/api/v1". */
  path?: string;
  /** An object is sent as JSON; a string is sent as is (e.g. invalid JSON). */
  body?: unknown;
  /** Cookies to send. */
  cookies?: Jar;
  /**
   * A signed-in jar: sends its cookies and, on non-GET requests, its XSRF token in
   * X-XSRF-TOKEN (what the browser client does).
   */
  jar?: Jar;
  headers?: Record<string, string>;
  /** Dynamic route parameters ([username] etc.). */
  params?: Record<string, string | string[]>;
}

export interface CallResult<T = any> {
  status: number;
  /** Parsed JSON body, or undefined when the body is empty or not JSON. */
  json: T;
  text: string;
  /** Set-Cookie headers parsed by name. */
  cookies: Record<string, SetCookie>;
  setCookie: string[];
  headers: Headers;
}

export function parseSetCookie(header: string): SetCookie {
  const [pair, ...attrs] = header.split(";");
  const i = pair.indexOf("=");
  const name = pair.slice(0, i).trim();
  const value = decodeURIComponent(pair.slice(i + 1).trim());
  const attributes: Record<string, string | true> = {};
  for (const a of attrs) {
    const j = a.indexOf("=");
    if (j < 0) attributes[a.trim().toLowerCase()] = true;
    else attributes[a.slice(0, j).trim().toLowerCase()] = a.slice(j + 1).trim();
  }
  const maxAge = typeof attributes["max-age"] === "string" ? Number(attributes["max-age"]) : undefined;
  return {
    name,
    value,
    attributes,
    httpOnly: attributes.httponly === true,
    secure: attributes.secure === true,
    sameSite: typeof attributes.samesite === "string" ? attributes.samesite : undefined,
    path: typeof attributes.path === "string" ? attributes.path : undefined,
    maxAge,
  };
}

function cookieHeader(jar: Jar): string {
  return Object.entries(jar)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join("; ");
}

/** Call a route handler the way Next.js would, and decode the answer. */
export async function call<T = any>(handler: Handler, opts: CallOptions = {}): Promise<CallResult<T>> {
  const method = (opts.method ?? "GET").toUpperCase();
  const headers = new Headers({ "x-defguard-client-ip": "127.0.0.1", "user-agent": "vitest" });
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
    headers.set("content-type", "application/json");
  }
  const jar: Jar = { ...(opts.jar ?? {}), ...(opts.cookies ?? {}) };
  if (Object.keys(jar).length > 0) headers.set("cookie", cookieHeader(jar));
  if (opts.jar?.[XSRF_COOKIE] && method !== "GET" && method !== "HEAD") headers.set("x-xsrf-token", opts.jar[XSRF_COOKIE]);
  for (const [k, v] of Object.entries(opts.headers ?? {})) headers.set(k, v);

  const req = new Request(`http://localhost${opts.path ?? "/api/v1"}`, { method, headers, body });
  const res = await handler(req, { params: Promise.resolve(opts.params ?? {}) });
  const text = await res.text();
  let json: any = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const setCookie = res.headers.getSetCookie();
  const cookies: Record<string, SetCookie> = {};
  for (const c of setCookie) {
    const parsed = parseSetCookie(c);
    cookies[parsed.name] = parsed;
  }
  return { status: res.status, json, text, cookies, setCookie, headers: res.headers };
}

/** The jar a browser would hold after this response (cookies with Max-Age=0 removed). */
export function jarFrom(res: CallResult, base: Jar = {}): Jar {
  const jar = { ...base };
  for (const c of Object.values(res.cookies)) {
    if (c.maxAge === 0 || c.value === "") delete jar[c.name];
    else jar[c.name] = c.value;
  }
  return jar;
}

export const DEFAULT_PASSWORD = "Passw0rd!x";

export interface NewUser {
  username: string;
  password?: string | null;
  email?: string;
  firstName?: string;
  lastName?: string;
  isAdmin?: boolean;
  isActive?: boolean;
  mfaEnabled?: boolean;
  groups?: string[];
}

async function ensureGroup(name: string, isAdmin: boolean): Promise<number> {
  const db = getDb();
  await db.insert(groups).values({ name, isAdmin }).onConflictDoNothing();
  const [g] = await db.select().from(groups).where(eq(groups.name, name));
  return g.id;
}

/** Write a user straight into the database (argon2id hash like the real thing). */
export async function createUser(u: NewUser): Promise<typeof users.$inferSelect & { password: string | null }> {
  const password = u.password === undefined ? DEFAULT_PASSWORD : u.password;
  const db = getDb();
  const [row] = await db
    .insert(users)
    .values({
      username: u.username,
      passwordHash: password === null ? null : await hashPassword(password),
      email: u.email ?? `${u.username.toLowerCase()}@example.com`,
      firstName: u.firstName ?? "Test",
      lastName: u.lastName ?? u.username,
      isActive: u.isActive ?? true,
      mfaEnabled: u.mfaEnabled ?? false,
      mfaMethod: u.mfaEnabled ? "OneTimePassword" : "None",
      totpEnabled: u.mfaEnabled ?? false,
    })
    .returning();
  const groupIds: number[] = [];
  if (u.isAdmin) groupIds.push(await ensureGroup("admin", true));
  for (const g of u.groups ?? []) groupIds.push(await ensureGroup(g, false));
  for (const groupId of groupIds) await db.insert(groupUsers).values({ groupId, userId: row.id }).onConflictDoNothing();
  return { ...row, password };
}

/** POST /api/v1/auth; expects 200 and returns the cookie jar (session + XSRF-TOKEN). */
export async function signIn(username: string, password = DEFAULT_PASSWORD, headers: Record<string, string> = {}): Promise<Jar> {
  const res = await call(authPost, { method: "POST", path: "/api/v1/auth", body: { username, password }, headers });
  expect(res.status, `sign-in of ${username}: ${res.text}`).toBe(200);
  const jar = jarFrom(res);
  expect(jar[SESSION_COOKIE]).toBeTruthy();
  expect(jar[XSRF_COOKIE]).toBeTruthy();
  return jar;
}

/** Run a raw SQL statement on the file's database and return its rows. */
export async function query<R = Record<string, unknown>>(text: string, values: unknown[] = []): Promise<R[]> {
  const r = await getPool().query(text, values);
  return r.rows as R[];
}

export { testLicence, signPayload } from "./fixtures/licence";

/** Store a licence key as is (null: none), bypassing the API's check, as a test set-up step. */
export async function setLicence(key: string | null): Promise<void> {
  await getPool().query("UPDATE settings SET license = $1 WHERE id = 1", [key]);
}
