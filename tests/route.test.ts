/**
 * The route wrapper (lib/http/route.ts) with throwaway handlers: access levels, error
 * mapping (AppError, PostgreSQL errors, the 500 path), input parsing.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { sql } from "drizzle-orm";
import { z } from "zod";
import { json, route } from "@/lib/http/route";
import { AppError, conflict, notFound } from "@/lib/errors";
import { getDb } from "@/lib/db";
import { groups } from "@/lib/db/schema";
import { call, createUser, jarFrom, query as sqlQuery, signIn, type Jar } from "./helpers";
import { POST as authPost } from "@/app/api/v1/auth/route";

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the 500 path", () => {
  it("answers 500 with a request_id and no message or stack of the error", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const boom = route({ access: "public" }, async () => {
      throw new Error("db password is hunter2 at /srv/secret/path");
    });
    const res = await call(boom, { path: "/api/v1/boom" });
    expect(res.status).toBe(500);
    expect(Object.keys(res.json).sort()).toEqual(["msg", "request_id"]);
    expect(res.json.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.text).not.toContain("hunter2");
    expect(res.text).not.toContain("/srv/secret");
    expect(res.text).not.toMatch(/\bat .*\.ts:\d+/);
    // The details go to the log, under the same request id.
    expect(log).toHaveBeenCalled();
    expect(log.mock.calls.flat().map(String).join(" ")).toContain(res.json.request_id);
  });

  it("gives every failing request its own id", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const boom = route({ access: "public" }, async () => {
      throw new TypeError("x is undefined");
    });
    const a = await call(boom);
    const b = await call(boom);
    expect(a.json.request_id).not.toBe(b.json.request_id);
  });

  it("treats a thrown non-Error value the same way", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const boom = route({ access: "public" }, async () => {
      throw "a string";
    });
    const res = await call(boom);
    expect(res.status).toBe(500);
    expect(res.text).not.toContain("a string");
  });
});

describe("error mapping", () => {
  it("answers an AppError with its status and {msg}", async () => {
    const h404 = route({ access: "public" }, async () => {
      throw notFound("location not found");
    });
    expect(await call(h404).then((r) => [r.status, r.json])).toEqual([404, { msg: "location not found" }]);
    const h409 = route({ access: "public" }, async () => {
      throw conflict("name taken", "name");
    });
    const r409 = await call(h409);
    expect(r409.status).toBe(409);
    expect(r409.json).toMatchObject({ msg: "name taken", field: "name" });
    const h422 = route({ access: "public" }, async () => {
      throw new AppError(422, "bad ports");
    });
    expect((await call(h422)).status).toBe(422);
  });

  it("answers a unique violation from PostgreSQL (through Drizzle) with 409, not 500", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const dup = route({ access: "public" }, async () => {
      await getDb().insert(groups).values({ name: "dup-group" });
      await getDb().insert(groups).values({ name: "dup-group" });
      return null;
    });
    const res = await call(dup);
    expect(res.status).toBe(409);
    expect(typeof res.json.msg).toBe("string");
  });

  it("answers an invalid value rejected by PostgreSQL (through Drizzle) with 400, not 500", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const bad = route({ access: "public" }, async () => {
      await getDb().execute(sql`select ${"not-a-number"}::int`);
      return null;
    });
    const res = await call(bad);
    expect(res.status).toBe(400);
  });

  it("answers a handler's plain value as JSON 200 with no-store", async () => {
    const h = route({ access: "public" }, async () => ({ a: 1, b: [true] }));
    const res = await call(h);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ a: 1, b: [true] });
    expect(res.headers.get("content-type")).toMatch(/application\/json/);
    expect(res.headers.get("cache-control")).toMatch(/no-store/);
    const custom = route({ access: "public" }, async () => json({ ok: true }, { status: 202 }));
    expect((await call(custom)).status).toBe(202);
  });
});

describe("access levels", () => {
  let admin: Jar;
  let user: Jar;
  let mfaHalf: Jar;
  const echo = (access: "public" | "session" | "user" | "admin" | "self-or-admin") =>
    route({ access, self: "username" }, async ({ caller, params }) => ({ who: caller?.user.username ?? null, params }));

  beforeAll(async () => {
    await createUser({ username: "acc-admin", isAdmin: true });
    await createUser({ username: "acc-user" });
    await createUser({ username: "acc-mfa", mfaEnabled: true });
    admin = await signIn("acc-admin");
    user = await signIn("acc-user");
    const r = await call(authPost, { method: "POST", path: "/api/v1/auth", body: { username: "acc-mfa", password: "Passw0rd!x" } });
    expect(r.status).toBe(201);
    mfaHalf = jarFrom(r);
  });

  it("exposes the declared access level on the handler", () => {
    expect(echo("admin").access).toBe("admin");
    expect(echo("public").access).toBe("public");
  });

  it("public: anyone", async () => {
    expect((await call(echo("public"))).json).toEqual({ who: null, params: {} });
    expect((await call(echo("public"), { jar: user })).json.who).toBe("acc-user");
  });

  it("session: also a session waiting for its second factor, but not nobody", async () => {
    expect((await call(echo("session"))).status).toBe(401);
    expect((await call(echo("session"), { jar: mfaHalf })).status).toBe(200);
  });

  it("user: a signed-in user, not a half-signed-in one", async () => {
    expect((await call(echo("user"))).status).toBe(401);
    expect((await call(echo("user"), { jar: mfaHalf })).status).toBe(401);
    expect((await call(echo("user"), { jar: user })).status).toBe(200);
  });

  it("admin: only members of an is_admin group", async () => {
    expect((await call(echo("admin"))).status).toBe(401);
    const denied = await call(echo("admin"), { jar: user });
    expect(denied.status).toBe(403);
    expect(typeof denied.json.msg).toBe("string");
    expect((await call(echo("admin"), { jar: admin })).status).toBe(200);
  });

  it("self-or-admin: the user named in the path, or an admin", async () => {
    const h = echo("self-or-admin");
    expect((await call(h, { jar: user, params: { username: "acc-user" } })).status).toBe(200);
    expect((await call(h, { jar: user, params: { username: "acc-admin" } })).status).toBe(403);
    expect((await call(h, { jar: admin, params: { username: "acc-user" } })).status).toBe(200);
    expect((await call(h, { params: { username: "acc-user" } })).status).toBe(401);
  });

  it("checks the XSRF token before running a mutation", async () => {
    let ran = 0;
    const mutate = route({ access: "user" }, async () => {
      ran++;
      return null;
    });
    expect((await call(mutate, { method: "DELETE", cookies: user })).status).toBe(403);
    expect((await call(mutate, { method: "PUT", cookies: user, headers: { "x-xsrf-token": admin["XSRF-TOKEN"] } })).status).toBe(403);
    expect(ran).toBe(0);
    expect((await call(mutate, { method: "DELETE", jar: user })).status).toBe(200);
    expect(ran).toBe(1);
  });

  it("loses admin rights as soon as the admin group membership goes", async () => {
    await createUser({ username: "acc-demoted", isAdmin: true });
    const jar = await signIn("acc-demoted");
    expect((await call(echo("admin"), { jar })).status).toBe(200);
    await sqlQuery("delete from group_users where user_id = (select id from users where username = 'acc-demoted')");
    expect((await call(echo("admin"), { jar })).status).toBe(403);
  });
});

describe("input parsing", () => {
  const body = z.object({ name: z.string().min(1), count: z.number().int() });
  const query = z.object({ page: z.coerce.number().int().min(1).default(1) });
  const h = route({ access: "public", body, query }, async (ctx) => ({ body: ctx.body, query: ctx.query }));

  it("passes parsed body and query to the handler", async () => {
    const res = await call(h, { method: "POST", path: "/x?page=3", body: { name: "a", count: 2, extra: "dropped" } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ body: { name: "a", count: 2 }, query: { page: 3 } });
  });

  it("answers 400 naming the body field, and the handler does not run", async () => {
    const res = await call(h, { method: "POST", path: "/x", body: { name: "a", count: "2" } });
    expect(res.status).toBe(400);
    expect(res.json.msg).toMatch(/^count\b/);
    expect(res.json.field).toBe("count");
  });

  it("answers 400 naming the query parameter", async () => {
    const res = await call(h, { method: "POST", path: "/x?page=0", body: { name: "a", count: 2 } });
    expect(res.status).toBe(400);
    expect(res.json.msg).toMatch(/page/);
  });

  it("honours a smaller body limit", async () => {
    const small = route({ access: "public", body: z.object({ s: z.string() }), maxBody: 100 }, async () => null);
    expect((await call(small, { method: "POST", body: { s: "x".repeat(50) } })).status).toBe(200);
    expect((await call(small, { method: "POST", body: { s: "x".repeat(200) } })).status).toBe(400);
  });

  it("counts the body limit in bytes, not characters", async () => {
    const small = route({ access: "public", body: z.object({ s: z.string() }), maxBody: 100 }, async () => null);
    // 40 characters, 160 bytes in UTF-8.
    expect((await call(small, { method: "POST", body: { s: "😀".repeat(40) } })).status).toBe(400);
  });
});

describe("JSON bodies only (cross-site forms)", () => {
  const h = route({ access: "public", body: z.object({ s: z.string() }) }, async (ctx) => ({ got: ctx.body }));
  const bodiless = route({ access: "public" }, async () => ({ ran: true }));

  it("accepts application/json, also with a charset", async () => {
    expect((await call(h, { method: "POST", body: { s: "a" } })).status).toBe(200);
    const res = await call(h, { method: "POST", body: { s: "a" }, headers: { "content-type": "Application/JSON; charset=utf-8" } });
    expect(res.status).toBe(200);
  });

  for (const type of ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "text/plain", "application/jsonx"]) {
    it(`answers 415 {msg} to a ${type} body, and the handler does not run`, async () => {
      const res = await call(h, { method: "POST", body: '{"s":"a"}', headers: { "content-type": type } });
      expect(res.status).toBe(415);
      expect(res.json).toEqual({ msg: "the request body must be JSON, sent with Content-Type: application/json" });
    });
  }

  it("refuses a form post to sign-in and sets no session cookie", async () => {
    await createUser({ username: "form-victim" });
    const res = await call(authPost, {
      method: "POST",
      path: "/api/v1/auth",
      body: "username=form-victim&password=Passw0rd%21x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(res.status).toBe(415);
    expect(res.setCookie).toEqual([]);
    const sessions = await sqlQuery<{ n: number }>(
      "SELECT count(*)::int AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.username = 'form-victim'",
    );
    expect(sessions[0].n).toBe(0);
  });

  it("lets a request with no body and no content type through (e.g. DELETE)", async () => {
    const res = await call(bodiless, { method: "DELETE" });
    expect(res.status).toBe(200);
    expect((await call(h, { method: "POST" })).status).toBe(400); // {} is parsed: s is missing
  });

  it("refuses a body without a content type, and a non-JSON type on a route without a body schema", async () => {
    const req = new Request("http://localhost/x", { method: "POST", body: new Blob(['{"s":"a"}']) });
    expect(req.headers.get("content-type")).toBeNull();
    expect((await h(req, { params: Promise.resolve({}) })).status).toBe(415);
    const res = await call(bodiless, { method: "POST", body: "a=1", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(res.status).toBe(415);
  });

  it("lets a route opt out (an upload reading the body itself)", async () => {
    const upload = route({ access: "public", anyContentType: true }, async ({ req }) => ({ n: (await req.text()).length }));
    const res = await call(upload, { method: "POST", body: "abc", headers: { "content-type": "text/plain" } });
    expect(res.json).toEqual({ n: 3 });
  });
});
