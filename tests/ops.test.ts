import { createServer, request as httpRequest, Agent } from "node:http";
import { createServer as netServer, type AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { inject } from "vitest";
import { jsonLine, requestIdFrom, withRequestId, currentRequestId } from "../lib/logging";
import { metricsAuthorized, RouteMatcher, apiRoutes } from "../lib/metrics";
import { checkDatabaseUrl, describeDatabaseUrl, StartupError, waitForDatabase } from "../lib/db/wait";
import { drainHttp, trackInflight } from "../lib/http/drain";

describe("metrics helpers", () => {
  it("labels request paths with their route pattern, never with ids or names", async () => {
    const m = new RouteMatcher(await apiRoutes(`${process.cwd()}/app`));
    expect(m.label("/api/v1/health")).toBe("/api/v1/health");
    expect(m.label("/api/v1/user/alice")).toBe("/api/v1/user/{username}");
    expect(m.label("/api/v1/user/alice?x=1")).toBe("/api/v1/user/{username}");
    expect(m.label("/api/v1/network/12/token")).toBe("/api/v1/network/{id}/token");
    // A static folder wins over a dynamic sibling.
    expect(m.label("/api/v1/network/gateways")).toBe("/api/v1/network/gateways");
    // The catch-all that answers JSON 404s has one label for everything it catches.
    expect(m.label("/api/v1/no/such/thing")).toBe("/api/v1/{path*}");
    expect(m.label("/api/v2/x")).toBe("/api/(unknown)");
    expect(m.label("/users/alice")).toBe("(page)");
    expect(m.label("/_next/static/chunks/x.js")).toBe("/_next");
  });

  it("requires the bearer token only when one is configured", () => {
    expect(metricsAuthorized(undefined, undefined)).toBe(true);
    expect(metricsAuthorized(undefined, "s3cret")).toBe(false);
    expect(metricsAuthorized("Bearer s3cre", "s3cret")).toBe(false);
    expect(metricsAuthorized("Basic s3cret", "s3cret")).toBe(false);
    expect(metricsAuthorized("Bearer s3cret", "s3cret")).toBe(true);
    expect(metricsAuthorized("bearer  s3cret", "s3cret")).toBe(true);
  });
});

describe("JSON log lines", () => {
  it("carry time, level, component, message and the request id", () => {
    const at = new Date("2026-01-02T03:04:05.000Z");
    expect(JSON.parse(jsonLine("error", ["[jobs] %s failed:", "presence", "boom"], at, "r-1"))).toEqual({
      time: "2026-01-02T03:04:05.000Z",
      level: "error",
      component: "jobs",
      msg: "presence failed: boom",
      request_id: "r-1",
    });
    expect(JSON.parse(jsonLine("info", ["plain"], at, undefined))).toEqual({ time: at.toISOString(), level: "info", msg: "plain" });
  });

  it("take the request id from the async context", async () => {
    expect(currentRequestId()).toBeUndefined();
    await withRequestId("abc", async () => {
      await new Promise((r) => setTimeout(r, 5));
      expect(JSON.parse(jsonLine("info", ["x"])).request_id).toBe("abc");
    });
  });

  it("accept a proxy's request id only when it is short and plain", () => {
    expect(requestIdFrom("lb-123.abc:9")).toBe("lb-123.abc:9");
    expect(requestIdFrom("bad id\n")).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIdFrom("x".repeat(200))).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIdFrom(undefined)).toMatch(/^[0-9a-f-]{36}$/);
  });
});

async function closedPort(): Promise<number> {
  const srv = netServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise((r) => srv.close(r));
  return port;
}

describe("waiting for an external database", () => {
  it("refuses a malformed DATABASE_URL in one sentence", () => {
    expect(() => checkDatabaseUrl("not a url")).toThrow(StartupError);
    expect(() => checkDatabaseUrl("mysql://u:p@h/db")).toThrow(/must start with postgres:\/\//);
    expect(() => checkDatabaseUrl("postgresql://u:p@h:5433/db")).not.toThrow();
    expect(describeDatabaseUrl("postgres://u:secret@db.example.com:5433/defguard")).toBe("db.example.com:5433/defguard");
  });

  it("retries an unreachable server with growing delays, then gives up without the password", async () => {
    const port = await closedPort();
    const lines: string[] = [];
    const t0 = Date.now();
    const err = await waitForDatabase(`postgres://u:hunter2@127.0.0.1:${port}/db`, {
      log: (l) => lines.push(l),
      timeoutMs: 700,
      initialDelayMs: 100,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupError);
    expect((err as Error).message).toMatch(/stayed unreachable .*ECONNREFUSED.*gave up after \d+ attempts/);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(600);
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines[0]).toContain(`waiting for the database 127.0.0.1:${port}/db`);
    const delays = lines.map((l) => Number(/retrying in ([\d.]+) s/.exec(l)?.[1]));
    expect(delays[1]).toBeGreaterThan(delays[0]);
    expect([...lines, (err as Error).message].join("\n")).not.toContain("hunter2");
  });

  it("does not wait for what waiting cannot fix: a wrong password fails at once", async () => {
    const u = new URL(inject("pgAdminUrl"));
    u.password = "definitely-wrong";
    const lines: string[] = [];
    const t0 = Date.now();
    const err = await waitForDatabase(u.toString(), { log: (l) => lines.push(l), timeoutMs: 30_000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupError);
    expect((err as Error).message).toMatch(/^cannot use the database 127\.0\.0\.1:\d+\/\w+: .*password authentication failed/);
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(lines).toEqual([]);
  });

  it("returns at once when the database answers", async () => {
    const lines: string[] = [];
    await waitForDatabase(inject("pgAdminUrl"), { log: (l) => lines.push(l) });
    expect(lines).toEqual([]);
  });
});

describe("draining HTTP at shutdown", () => {
  it("answers every request in flight and closes keep-alive connections, resetting none", async () => {
    let received = 0;
    const server = createServer((req, res) => {
      received++;
      setTimeout(() => res.end(`done ${req.url}`), 300);
    });
    trackInflight(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    const agent = new Agent({ keepAlive: true, maxSockets: 50 });
    const get = (i: number) =>
      new Promise<{ status: number; body: string; connection: string | undefined } | { error: string }>((res) => {
        const req = httpRequest({ host: "127.0.0.1", port, path: `/${i}`, agent }, (r) => {
          let body = "";
          r.on("data", (c) => (body += c));
          r.on("end", () => res({ status: r.statusCode ?? 0, body, connection: r.headers.connection }));
        });
        req.on("error", (e: NodeJS.ErrnoException) => res({ error: e.code ?? e.message }));
        req.end();
      });
    const pending = Array.from({ length: 50 }, (_, i) => get(i));
    // In flight = received by the server (a connection still in the accept queue when the
    // listener closes is refused by the kernel: a load balancer stops sending before that).
    while (received < 50) await new Promise((r) => setTimeout(r, 10));
    const left = await drainHttp(server, 5000);
    const results = await Promise.all(pending);
    expect(left).toBe(0);
    expect(results.filter((r) => "error" in r)).toEqual([]);
    for (const [i, r] of results.entries()) expect(r).toEqual({ status: 200, body: `done /${i}`, connection: "close" });
    agent.destroy();
  });

  it("cuts what is still running after the timeout and says how many", async () => {
    const server = createServer(() => {
      /* never answers */
    });
    trackInflight(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as AddressInfo).port;
    const failed = new Promise<string>((res) => {
      const req = httpRequest({ host: "127.0.0.1", port, path: "/" }, () => res("answered"));
      req.on("error", (e: NodeJS.ErrnoException) => res(e.code ?? e.message));
      req.end();
    });
    await new Promise((r) => setTimeout(r, 100));
    expect(await drainHttp(server, 200)).toBe(1);
    expect(await failed).toBe("ECONNRESET");
  });
});

describe("sign-in metrics", () => {
  it("count successes, failures and lockouts", async () => {
    const { metrics } = await import("../lib/metrics");
    const { call, createUser } = await import("./helpers");
    const { POST } = await import("@/app/api/v1/auth/route");
    const value = async (name: string, labels: Record<string, string> = {}) => {
      const m = (await metrics().registry.getSingleMetric(name)!.get()).values;
      return m.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k] === x))?.value ?? 0;
    };
    await createUser({ username: "metered" });
    const before = { ok: await value("defguard_sign_ins_total", { result: "success" }), bad: await value("defguard_sign_ins_total", { result: "failure" }), locked: await value("defguard_sign_in_lockouts_total") };
    const attempt = (password: string) =>
      call(POST, { method: "POST", path: "/api/v1/auth", body: { username: "metered", password }, headers: { "x-defguard-client-ip": "198.51.100.9" } });
    expect((await attempt("Passw0rd!x")).status).toBe(200);
    let failures = 0;
    let status = 401;
    while (status === 401 && failures < 50) {
      status = (await attempt("wrong-password")).status;
      if (status === 401) failures++;
    }
    expect(status).toBe(429);
    expect(await value("defguard_sign_ins_total", { result: "success" })).toBe(before.ok + 1);
    expect(await value("defguard_sign_ins_total", { result: "failure" })).toBe(before.bad + failures);
    expect(await value("defguard_sign_in_lockouts_total")).toBe(before.locked + 1);
    expect(await value("defguard_sign_ins_total", { result: "locked" })).toBeGreaterThanOrEqual(1);
  });
});
