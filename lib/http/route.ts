import "server-only";
import { randomUUID } from "node:crypto";
import { z, type ZodType } from "zod";
import en from "../../messages/en.json";
import { AppError } from "../errors";
import { findApiTokenSession, findSession, requireFreshProof, SESSION_COOKIE, XSRF_COOKIE, XSRF_HEADER, xsrfTokenFor, type Session } from "../auth/session";
import { MODULE_DISABLED_MSG, moduleOfPath } from "../auth/modules";
import { safeEqual } from "../crypto";
import { parseCookies } from "./cookies";
import { isDatabaseUnavailable } from "../errors";
import { describeError } from "../log-errors";
import { zodMessage } from "../zod-message";
import { requireEnterprise } from "../enterprise/service";

/**
 * Who may call a route:
 * - public: anyone;
 * - session: any session, also one still waiting for its second factor (MFA steps);
 * - user: a signed-in user (MFA completed where enabled);
 * - admin: a signed-in admin;
 * - self-or-admin: a signed-in user whose username is the route's `self` parameter, or an admin.
 */
export type Access = "public" | "session" | "user" | "admin" | "self-or-admin";

export interface Caller {
  session: Session;
  /** The session cookie's token; empty for a request authorised by an API token. */
  sessionToken: string;
  user: Session["user"];
  isAdmin: boolean;
  /** The API token that authorised the request (`Authorization: Bearer`), if any. */
  apiToken?: { id: number; name: string };
}

export interface Ctx<B, Q> {
  req: Request;
  params: Record<string, string>;
  body: B;
  query: Q;
  caller: Caller | null;
  ip: string | null;
  userAgent: string | null;
  requestId: string;
  cookies: Record<string, string>;
}

export interface RouteOptions<B extends ZodType | undefined, Q extends ZodType | undefined> {
  access: Access;
  body?: B;
  query?: Q;
  /** Parameter holding the username for self-or-admin routes. */
  self?: string;
  /** Body size limit in bytes (default 1 MiB). */
  maxBody?: number;
  /** Skip the anti-forgery check (only for sign-in, which replaces the session). */
  skipXsrf?: boolean;
  /**
   * Reachable by a signed-in user who has no MFA while the instance requires it (MFA setup,
   * own profile, sign-out). Every other route answers 403 mfa_setup_required for them.
   */
  allowWithoutMfa?: boolean;
  /** Changes sign-in security: the session must have proved itself recently (403 reauth_required). */
  fresh?: boolean;
  /**
   * Let a request body of any content type through (a future upload route that reads
   * `req` itself). Every other route refuses a non-JSON body with 415.
   */
  anyContentType?: boolean;
  /**
   * Stands in for defguard's proxy (enrolment, desktop client): every error answer also carries
   * its text as `error`, the field the proxy's clients read.
   */
  proxyErrors?: boolean;
  /**
   * An enterprise feature: once the free tier's limits are exceeded without a valid licence the
   * route answers 403 {msg, code: "license_required"} before anything runs (after the access
   * checks). Must match the `enterprise` flag of the route's declaration in
   * lib/openapi/operations.ts (tests/authz-matrix.test.ts checks both ways).
   */
  enterprise?: boolean;
}

type Infer<T> = T extends ZodType ? z.infer<T> : undefined;
type NextCtx = { params: Promise<Record<string, string | string[]>> };
export type RouteHandler = ((req: Request, ctx: NextCtx) => Promise<Response>) & {
  access: Access;
  self?: string;
  allowWithoutMfa?: boolean;
  enterprise?: boolean;
  /** The zod body schema, for tests that generate bodies from it. */
  bodySchema?: ZodType;
  /** Path parameters fixed by `withParams` (a static path standing for a dynamic one). */
  fixedParams?: Record<string, string>;
  /** The handler `byBody` hands the other kind of body to. */
  alternative?: RouteHandler;
};

const CLIENT_IP_HEADER = "x-defguard-client-ip";
const REQUEST_ID_HEADER = "x-defguard-request-id";
const DEFAULT_MAX_BODY = 1024 * 1024;
const validationText = (en as { validation: Record<string, string> }).validation;
export const NOT_JSON_MSG = "the request body must be JSON, sent with Content-Type: application/json";

/** `application/json`, with or without parameters such as `; charset=utf-8`. */
export function isJsonContentType(value: string | null): boolean {
  return (value ?? "").split(";")[0].trim().toLowerCase() === "application/json";
}

/**
 * Cross-site forms can only send urlencoded, multipart or text/plain bodies without a
 * preflight: a mutating request whose body is not declared as JSON is refused before anything
 * runs (sign-in included). A request with no body and no content type (e.g. DELETE) passes.
 */
function refusesContentType(req: Request, method: string): boolean {
  if (["GET", "HEAD", "OPTIONS"].includes(method)) return false;
  const type = req.headers.get("content-type");
  if (type !== null) return !isJsonContentType(type);
  const len = req.headers.get("content-length");
  return (len !== null && Number(len) > 0) || req.headers.has("transfer-encoding");
}

export function json(data: unknown, init: { status?: number; headers?: HeadersInit } = {}): Response {
  const headers = new Headers(init.headers);
  headers.set("content-type", "application/json");
  headers.set("cache-control", "no-store");
  return new Response(data === undefined ? "null" : JSON.stringify(data), { status: init.status ?? 200, headers });
}

/** A 200 with JSON already serialised (e.g. built by PostgreSQL, possibly cached): sent as is, not copied. */
export function jsonBytes(body: Buffer): Response {
  return new Response(new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength), {
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
}

export function errorResponse(status: number, msg: string, extra: Record<string, unknown> = {}): Response {
  return json({ msg, ...extra }, { status });
}

export { zodMessage };

async function readJson(req: Request, limit: number, requireJsonType: boolean): Promise<unknown> {
  const len = Number(req.headers.get("content-length") || 0);
  if (len > limit) throw new AppError(400, `request body is larger than ${limit} bytes`);
  const text = await req.text();
  if (Buffer.byteLength(text) > limit) throw new AppError(400, `request body is larger than ${limit} bytes`);
  if (!text.trim()) return {};
  // A body without any content type (no length header, e.g. streamed) is not JSON either.
  if (requireJsonType && !isJsonContentType(req.headers.get("content-type"))) throw new AppError(415, NOT_JSON_MSG);
  try {
    return JSON.parse(text);
  } catch {
    throw new AppError(400, "request body is not valid JSON");
  }
}

function queryObject(url: URL): Record<string, string | string[]> {
  const q: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const prev = q[k];
    q[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return q;
}

export const API_TOKEN_MSG = {
  invalid: "invalid API token",
  notAdmin: "API tokens are accepted only for admins",
} as const;

/** The token of an `Authorization: Bearer <token>` header, or null without one. */
function bearerToken(req: Request): string | null {
  const header = req.headers.get("authorization");
  if (header === null) return null;
  const m = /^\s*Bearer\s+(\S*)\s*$/i.exec(header);
  return m ? m[1] : null;
}

function isAuthenticated(s: Session): boolean {
  return s.state === "authenticated";
}

/**
 * The wrapper every /api/v1 handler uses. It resolves the caller from the session cookie,
 * enforces the access level and the anti-forgery token, parses input with zod, and maps
 * errors: AppError -> its status and msg; an unreachable database -> 503; anything else -> 500
 * with a request id (logged).
 */
export function route<B extends ZodType | undefined = undefined, Q extends ZodType | undefined = undefined>(
  opts: RouteOptions<B, Q>,
  handler: (ctx: Ctx<Infer<B>, Infer<Q>>) => Promise<Response | unknown>,
): RouteHandler {
  const fn = async (req: Request, nextCtx: NextCtx): Promise<Response> => {
    // server.ts assigns every request an id (also sent back as X-Request-Id and put on its log lines).
    const requestId = req.headers.get(REQUEST_ID_HEADER) || randomUUID();
    try {
      const rawParams = (await nextCtx?.params) ?? {};
      const params: Record<string, string> = {};
      for (const [k, v] of Object.entries(rawParams)) params[k] = Array.isArray(v) ? v.join("/") : v;
      const nul = Object.entries(params).find(([, v]) => v.includes("\u0000"));
      if (nul) return errorResponse(400, `${nul[0]}: ${validationText.forbiddenChars}`, { field: nul[0] });
      const method = req.method.toUpperCase();
      if (!opts.anyContentType && refusesContentType(req, method)) return errorResponse(415, NOT_JSON_MSG);
      const cookies = parseCookies(req.headers.get("cookie"));
      const unsafe = !["GET", "HEAD", "OPTIONS"].includes(method);

      let caller: Caller | null = null;
      const bearer = bearerToken(req);
      if (bearer !== null) {
        // An API token replaces the cookie: the request is authorised by the header alone, and
        // needs no anti-forgery token (a cross-site page cannot set Authorization).
        const session = await findApiTokenSession(bearer);
        if (opts.access !== "public") {
          if (!session) return errorResponse(401, API_TOKEN_MSG.invalid);
          if (!session.user.isAdmin) return errorResponse(403, API_TOKEN_MSG.notAdmin);
        }
        if (session?.user.isAdmin) {
          caller = { session, sessionToken: "", user: session.user, isAdmin: true, apiToken: session.apiToken };
        }
      } else {
        const token = cookies[SESSION_COOKIE];
        if (token) {
          const session = await findSession(token);
          if (session && session.user.isActive) {
            caller = { session, sessionToken: token, user: session.user, isAdmin: session.user.isAdmin };
          }
        }
      }
      if (caller && !caller.apiToken && unsafe && !opts.skipXsrf) {
        const header = req.headers.get(XSRF_HEADER) ?? "";
        if (!header || !safeEqual(header, xsrfTokenFor(caller.sessionToken))) {
          return errorResponse(403, "missing or invalid X-XSRF-TOKEN header");
        }
      }

      if (opts.access !== "public") {
        if (!caller) return errorResponse(401, "not signed in");
        if (opts.access !== "session" && !isAuthenticated(caller.session)) {
          return errorResponse(401, "second authentication factor required");
        }
        if (
          opts.access !== "session" &&
          !opts.allowWithoutMfa &&
          caller.session.policy.requireMfa &&
          !caller.user.mfaEnabled
        ) {
          return errorResponse(403, "MFA setup required: turn on a second factor in your profile first", {
            code: "mfa_setup_required",
          });
        }
        if (opts.access === "admin" && !caller.isAdmin) return errorResponse(403, "admin access required");
        if (opts.access === "self-or-admin") {
          const target = params[opts.self ?? "username"];
          if (!caller.isAdmin && caller.user.username !== target) return errorResponse(403, "access denied");
        }
        if (opts.fresh) requireFreshProof(caller.session);
        // A route of a module switched off in Settings → Global (lib/auth/modules.ts).
        const mod = moduleOfPath(new URL(req.url).pathname);
        if (mod && caller.session.policy.disabledModules.includes(mod)) {
          return errorResponse(403, MODULE_DISABLED_MSG[mod], { code: "module_disabled" });
        }
      }
      if (opts.enterprise) await requireEnterprise();

      let body: unknown = undefined;
      if (opts.body) {
        const raw = await readJson(req, opts.maxBody ?? DEFAULT_MAX_BODY, !opts.anyContentType);
        const parsed = opts.body.safeParse(raw);
        if (!parsed.success) {
          const { msg, field } = zodMessage(parsed.error);
          return errorResponse(400, msg, { field, ...(opts.proxyErrors ? { error: msg } : {}) });
        }
        body = parsed.data;
      }
      let query: unknown = undefined;
      if (opts.query) {
        const parsed = opts.query.safeParse(queryObject(new URL(req.url)));
        if (!parsed.success) {
          const { msg, field } = zodMessage(parsed.error);
          return errorResponse(400, msg, { field });
        }
        query = parsed.data;
      }

      const out = await handler({
        req,
        params,
        body: body as Infer<B>,
        query: query as Infer<Q>,
        caller,
        ip: req.headers.get(CLIENT_IP_HEADER),
        userAgent: req.headers.get("user-agent"),
        requestId,
        cookies,
      });
      return out instanceof Response ? out : json(out);
    } catch (err) {
      if (err instanceof AppError) {
        const extra = { ...(err.field ? { field: err.field } : {}), ...(err.extra.code ? { code: err.extra.code } : {}) };
        return json({ msg: err.msg, ...extra, ...(opts.proxyErrors ? { error: err.msg } : {}) }, { status: err.status, headers: err.extra.headers });
      }
      // drizzle wraps driver errors; the PostgreSQL SQLSTATE is on the error or its cause.
      const e = err as { code?: string; cause?: { code?: string } };
      const pgCode = e.code ?? e.cause?.code;
      if (pgCode === "23505") return errorResponse(409, "already exists");
      // 22P02 invalid text, 22003 out of range, 22021 bad byte sequence (e.g. a NUL in a string).
      if (pgCode === "22P02" || pgCode === "22003" || pgCode === "22021") return errorResponse(400, "invalid value");
      // The database is unreachable or restarting: a temporary condition, not a server fault.
      if (isDatabaseUnavailable(err)) return errorResponse(503, "database unavailable, try again shortly");
      console.error(`[api] request ${requestId} ${req.method} ${new URL(req.url).pathname} failed:`, describeError(err));
      return errorResponse(500, "internal server error", { request_id: requestId });
    }
  };
  return Object.assign(fn, {
    access: opts.access,
    self: opts.self,
    allowWithoutMfa: opts.allowWithoutMfa,
    enterprise: opts.enterprise,
    bodySchema: opts.body,
  });
}

export { XSRF_COOKIE, SESSION_COOKIE };

/**
 * A static path segment is also a value its dynamic sibling can take (/user/bulk next to
 * /user/{username}, for a user named "bulk"): Next.js gives the static route every request for
 * that path, so the static route file exports the dynamic route's handler with the parameter
 * filled in. Access, `self` and the rest stay the dynamic route's.
 */
export function withParams(handler: RouteHandler, fixed: Record<string, string>): RouteHandler {
  const fn = async (req: Request, nextCtx: NextCtx) =>
    handler(req, { params: Promise.resolve({ ...((await nextCtx?.params) ?? {}), ...fixed }) });
  return Object.assign(fn, { ...pickMeta(handler), fixedParams: fixed });
}

/**
 * One method of a static path answering two kinds of body (POST /device/bulk: a bulk action, or a
 * device for the user named "bulk" as POST /device/{username} would add it): a body for which
 * `isOther` holds goes to `other`, every other body (malformed ones included) to `main`, whose
 * access level the route declares. The body is peeked at on a copy of the request; each handler
 * still reads, limits and validates it itself.
 */
export function byBody(main: RouteHandler, other: RouteHandler, isOther: (body: unknown) => boolean): RouteHandler {
  const fn = async (req: Request, nextCtx: NextCtx) => {
    let peek: unknown = null;
    const declared = Number(req.headers.get("content-length") ?? 0);
    if (req.body && !(declared > DEFAULT_MAX_BODY)) {
      // A copy of the body, read only up to the limit: a chunked or oversized body is not read
      // whole here before the handler's own limit applies; it goes to `main`, which refuses it.
      const text = await readAtMost(req.clone(), DEFAULT_MAX_BODY);
      if (text !== null) {
        try {
          peek = JSON.parse(text);
        } catch {
          peek = null;
        }
      }
    }
    return (peek !== null && isOther(peek) ? other : main)(req, nextCtx);
  };
  return Object.assign(fn, { ...pickMeta(main), alternative: other });
}

/** The body as text when it has at most `limit` bytes, else null (reading stops past the limit). */
async function readAtMost(req: Request, limit: number): Promise<string | null> {
  const reader = req.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function pickMeta(h: RouteHandler) {
  return { access: h.access, self: h.self, allowWithoutMfa: h.allowWithoutMfa, enterprise: h.enterprise, bodySchema: h.bodySchema };
}

/** The activity-log actor for a request: the signed-in caller and the client address. */
export function actorOf(ctx: { caller: Caller | null; ip: string | null }) {
  if (!ctx.caller) return { userId: null, username: "anonymous", ip: ctx.ip };
  const actor = { userId: ctx.caller.user.id, username: ctx.caller.user.username, ip: ctx.ip };
  return ctx.caller.apiToken ? { ...actor, apiToken: ctx.caller.apiToken.name } : actor;
}
