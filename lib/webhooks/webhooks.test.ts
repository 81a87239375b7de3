/**
 * /webhook and /activity_log_stream through the route handlers: defguard's wire shapes, bad
 * input refused with {msg} and nothing changed, secrets encrypted at rest; log streams sent as
 * NDJSON batches to real receivers, plain and TLS with a CA made here.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { call, createUser, query, setLicence, signIn, testLicence, type Jar } from "@/tests/helpers";
import { startReceiver, type Receiver } from "@/tests/http-receiver";
import { makeTestPki, type TestPki } from "@/tests/tls";
import { deliverDue, setStreamGate } from "@/lib/outbox/worker";
import { streamDeliveryAllowed } from "./streams";
import { GET as listHooks, POST as addHook } from "@/app/api/v1/webhook/route";
import { DELETE as delHook, GET as getHook, POST as stateHook, PUT as putHook } from "@/app/api/v1/webhook/[id]/route";
import { GET as listStreams, POST as addStream } from "@/app/api/v1/activity_log_stream/route";
import { DELETE as delStream, GET as getStream, PUT as putStream } from "@/app/api/v1/activity_log_stream/[id]/route";
import { POST as addUser } from "@/app/api/v1/user/route";

let admin: Jar;
const hook = {
  url: "https://hooks.example.com/defguard",
  description: "CRM sync",
  token: "tok-123456",
  enabled: true,
  on_user_created: true,
  on_user_deleted: false,
  on_user_modified: true,
  on_hwkey_provision: false,
};

beforeAll(async () => {
  await createUser({ username: "admin1", isAdmin: true });
  await createUser({ username: "plain" });
  admin = await signIn("admin1");
});

async function drain() {
  for (let i = 0; i < 50; i++) {
    if (!(await deliverDue())) {
      const [{ due }] = await query<{ due: number }>("select count(*)::int due from outbox where state = 'pending' and next_attempt_at <= now()");
      if (!due) return;
      await new Promise((r) => setTimeout(r, 30));
    }
  }
}

describe("/webhook", () => {
  beforeEach(async () => {
    await query("delete from webhooks");
  });

  it("creates, lists, reads, edits, toggles and deletes a webhook in defguard's shape", async () => {
    const created = await call(addHook, { method: "POST", jar: admin, body: hook });
    expect(created.status).toBe(201);
    const id = created.json.id as number;
    const list = await call(listHooks, { jar: admin });
    expect(list.json).toEqual([{ id, ...hook }]);
    // Encrypted at rest: the stored value is not the token.
    const [row] = await query<{ token: string }>("select token from webhooks");
    expect(row.token).not.toContain("tok-123456");
    expect(row.token.startsWith("v1:")).toBe(true);

    const put = await call(putHook, { method: "PUT", jar: admin, params: { id: String(id) }, body: { ...hook, url: "http://203.0.113.5:8080/x", on_user_deleted: true } });
    expect(put.status).toBe(200);
    const one = await call(getHook, { jar: admin, params: { id: String(id) } });
    expect(one.json).toMatchObject({ id, url: "http://203.0.113.5:8080/x", on_user_deleted: true, token: "tok-123456" });

    const off = await call(stateHook, { method: "POST", jar: admin, params: { id: String(id) }, body: { enabled: false } });
    expect(off.status).toBe(200);
    expect((await call(getHook, { jar: admin, params: { id: String(id) } })).json.enabled).toBe(false);

    const events = await query<{ event: string }>("select event from activity_log where event like 'web_hook%' order by id");
    expect(events.map((e) => e.event)).toEqual(["web_hook_added", "web_hook_modified", "web_hook_state_changed"]);
    expect(JSON.stringify(await query("select description from activity_log"))).not.toContain("tok-123456");

    const del = await call(delHook, { method: "DELETE", jar: admin, params: { id: String(id) } });
    expect(del.status).toBe(200);
    expect((await call(getHook, { jar: admin, params: { id: String(id) } })).status).toBe(404);
    expect((await call(delHook, { method: "DELETE", jar: admin, params: { id: "abc" } })).status).toBe(400);
  });

  it.each([
    [{ url: "ftp://example.com/x" }, "url"],
    [{ url: "javascript:alert(1)" }, "url"],
    [{ url: "not a url" }, "url"],
    [{ url: "https://user:pw@example.com/" }, "url"],
    [{ url: "" }, "url"],
    [{ token: "" }, "token"],
    [{ token: undefined }, "token"],
    [{ on_user_created: false, on_user_modified: false }, "on_user_created"],
    [{ enabled: "yes" }, "enabled"],
  ])("refuses %j with 400 {msg} naming %s, and changes nothing", async (patch, field) => {
    const res = await call(addHook, { method: "POST", jar: admin, body: { ...hook, ...patch } });
    expect(res.status).toBe(400);
    expect(res.json.msg).toMatch(new RegExp(`^${field}: `));
    expect(await query("select 1 from webhooks")).toHaveLength(0);
  });

  it("is for admins only", async () => {
    const user = await signIn("plain");
    expect((await call(listHooks, { jar: user })).status).toBe(403);
    expect((await call(addHook, { method: "POST", jar: user, body: hook })).status).toBe(403);
  });
});

describe("/activity_log_stream", () => {
  let pki: TestPki;
  let tlsRx: Receiver;
  let plainRx: Receiver;
  const pem = (f: string) => readFileSync(f, "utf8");

  beforeAll(async () => {
    pki = makeTestPki();
    tlsRx = await startReceiver({ tls: { cert: pem(pki.serverCert), key: pem(pki.serverKey) } });
    plainRx = await startReceiver();
  });
  afterAll(async () => {
    await tlsRx.close();
    await plainRx.close();
    pki.cleanup();
  });
  beforeEach(async () => {
    await query("delete from activity_log_streams");
    await query("delete from outbox");
    tlsRx.received.length = 0;
    plainRx.received.length = 0;
  });

  it("streams every activity event as NDJSON to Vector over TLS with a custom CA and Basic auth", async () => {
    const body = {
      name: "vector",
      stream_type: "vector_http",
      stream_config: { url: tlsRx.url, username: "vec", password: "pw-secret", cert: pem(pki.caCert) },
    };
    const created = await call(addStream, { method: "POST", jar: admin, body });
    expect(created.status).toBe(201);
    const [stored] = await query<{ password: string }>("select password from activity_log_streams");
    expect(stored.password).not.toContain("pw-secret");

    for (const u of ["s1", "s2", "s3"]) {
      const r = await call(addUser, { method: "POST", jar: admin, body: { username: u, first_name: "S", last_name: "T", email: `${u}@example.com`, phone: null } });
      expect(r.status).toBe(201);
    }
    await drain();
    expect(tlsRx.received.length).toBeGreaterThanOrEqual(1);
    const req = tlsRx.received[0];
    expect(req.headers["content-type"]).toBe("application/x-ndjson");
    expect(req.headers.authorization).toBe(`Basic ${Buffer.from("vec:pw-secret").toString("base64")}`);
    const lines = tlsRx.received.flatMap((r) => r.body.trimEnd().split("\n")).map((l) => JSON.parse(l));
    // The stream's own creation entry comes first, then the three user_added entries.
    expect(lines.map((l) => l.event)).toEqual(["activity_log_stream_created", "user_added", "user_added", "user_added"]);
    expect(lines[1]).toMatchObject({ username: "admin1", module: "defguard", event: "user_added" });
    expect(Object.keys(lines[1]).sort()).toEqual(["description", "device", "event", "id", "ip", "location", "module", "timestamp", "user_id", "username"]);

    const list = await call(listStreams, { jar: admin });
    expect(list.json).toHaveLength(1);
    expect(list.json[0]).toMatchObject({
      name: "vector",
      stream_type: "vector_http",
      config: { url: tlsRx.url, username: "vec", password: "pw-secret" },
      status: { backlog: 0, last_error: null },
    });
    expect(list.json[0].status.last_success).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("batches at most 500 events per request", async () => {
    await call(addStream, { method: "POST", jar: admin, body: { name: "ls", stream_type: "logstash_http", stream_config: { url: plainRx.url } } });
    await query(
      "insert into activity_log (username, event, module, description) select 'bulk', 'user_login', 'defguard', 'n' || g from generate_series(1, 1200) g",
    );
    await drain();
    const sizes = plainRx.received.map((r) => r.body.trimEnd().split("\n").length);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(1201);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(500);
    expect(plainRx.received.every((r) => r.headers.authorization === undefined)).toBe(true);
  });

  it("keeps the backlog and shows the error while the server's certificate is not trusted", async () => {
    const res = await call(addStream, {
      method: "POST",
      jar: admin,
      body: { name: "bad-ca", stream_type: "logstash_http", stream_config: { url: tlsRx.url, cert: pem(pki.otherCaCert) } },
    });
    expect(res.status).toBe(201);
    // A stream's first entry waits a quarter of a second for others to share its request.
    expect(await deliverDue()).toBe(0);
    await new Promise((r) => setTimeout(r, 300));
    expect(await deliverDue()).toBe(1);
    expect(tlsRx.received).toHaveLength(0);
    const [s] = (await call(listStreams, { jar: admin })).json;
    expect(s.status.backlog).toBe(1);
    expect(s.status.last_error).toBeTruthy();
    expect(s.status.last_success).toBeNull();
    // Fixing the certificate lets the backlog through.
    const put = await call(putStream, {
      method: "PUT",
      jar: admin,
      params: { id: String(s.id) },
      body: { name: "bad-ca", stream_type: "logstash_http", stream_config: { url: tlsRx.url, cert: pem(pki.caCert) } },
    });
    expect(put.status).toBe(200);
    await query("update outbox set next_attempt_at = now()");
    await drain();
    const events = tlsRx.received.flatMap((r) => r.body.trimEnd().split("\n")).map((l) => JSON.parse(l).event);
    expect(events).toEqual(["activity_log_stream_created", "activity_log_stream_modified"]);
    expect((await call(getStream, { jar: admin, params: { id: String(s.id) } })).json.status).toMatchObject({ backlog: 0, last_error: null });
    expect((await call(delStream, { method: "DELETE", jar: admin, params: { id: String(s.id) } })).status).toBe(200);
    expect(await query("select 1 from outbox where kind = 'stream'")).toHaveLength(0);
  });

  it.each([
    [{ stream_type: "syslog" }, "stream_type"],
    [{ stream_config: { url: "file:///etc/passwd" } }, "stream_config.url"],
    [{ stream_config: { url: "https://203.0.113.9/", cert: "not a cert" } }, "stream_config.cert"],
    [{ name: "" }, "name"],
  ])("refuses %j with 400 {msg} naming %s", async (patch, field) => {
    const res = await call(addStream, { method: "POST", jar: admin, body: { name: "x", stream_type: "vector_http", stream_config: { url: "https://203.0.113.9/" }, ...patch } });
    expect(res.status).toBe(400);
    expect(res.json.msg).toMatch(new RegExp(`^${field.replace(".", "\\.")}: `));
    expect(await query("select 1 from activity_log_streams")).toHaveLength(0);
  });
});

describe("/activity_log_stream without an enterprise licence", () => {
  it("refuses to add or edit a stream with 403 {msg} once the free limits are exceeded, but deletes one", async () => {
    await setLicence(null);
    await query("delete from activity_log_streams");
    await query("insert into activity_log_streams (name, stream_type, url) values ('kept', 'vector_http', 'https://203.0.113.9/')");
    const [{ id }] = await query<{ id: number }>("select id from activity_log_streams");
    for (let i = 0; i < 6; i++) await createUser({ username: `extra${i}` });
    const body = { name: "x", stream_type: "vector_http", stream_config: { url: "https://203.0.113.9/" } };
    const add = await call(addStream, { method: "POST", jar: admin, body });
    expect(add.status).toBe(403);
    expect(add.json).toMatchObject({ code: "license_required", msg: expect.stringMatching(/enterprise feature/) });
    expect((await call(putStream, { method: "PUT", jar: admin, params: { id: String(id) }, body })).status).toBe(403);
    expect((await call(delStream, { method: "DELETE", jar: admin, params: { id: String(id) } })).status).toBe(200);
    expect(await query("select 1 from activity_log_streams")).toHaveLength(0);
    // With a licence again, adding works (the users are still there).
    await setLicence(testLicence());
    expect((await call(addStream, { method: "POST", jar: admin, body })).status).toBe(201);
  });
});

describe("log-stream delivery while enterprise features are unavailable", () => {
  let rx: Receiver;
  beforeAll(async () => {
    rx = await startReceiver();
    // As lib/jobs/runner.ts does in the server.
    setStreamGate(streamDeliveryAllowed);
  });
  afterAll(async () => {
    setStreamGate(null);
    await setLicence(testLicence());
    await rx.close();
  });

  const sentEvents = () => rx.received.flatMap((r) => r.body.trimEnd().split("\n")).map((l) => JSON.parse(l).description as string);
  const gather = () => new Promise((r) => setTimeout(r, 300));

  it("pauses (nothing sent, nothing given up, the status says why) and sends the whole backlog in order once a licence is back", async () => {
    await setLicence(testLicence());
    await query("delete from activity_log_streams");
    await query("delete from outbox");
    const add = await call(addStream, { method: "POST", jar: admin, body: { name: "paused", stream_type: "vector_http", stream_config: { url: rx.url } } });
    expect(add.status).toBe(201);
    await gather();
    await drain();
    expect(sentEvents()).toHaveLength(1);
    rx.received.length = 0;

    // No licence and over the free tier.
    await setLicence(null);
    const [{ n }] = await query<{ n: number }>("select count(*)::int n from users");
    for (let i = n; i <= 5; i++) await createUser({ username: `pause-extra${i}` });
    await query("insert into activity_log (username, event, module, description) select 'bulk', 'user_login', 'defguard', 'p' || g from generate_series(1, 5) g");
    await gather();
    expect(await deliverDue()).toBe(0);
    await drain();
    expect(rx.received).toHaveLength(0);
    const [s] = (await call(listStreams, { jar: admin })).json;
    expect(s.status.backlog).toBe(5);
    expect(s.status.paused).toMatch(/^Delivery paused: .*users \d+\/5.*no licence is installed.*kept/);
    expect(s.status.last_error).toBeNull();
    const rows = await query<{ state: string; attempts: number }>("select state, attempts from outbox where kind = 'stream'");
    expect(rows.filter((r) => r.state === "pending" && r.attempts === 0)).toHaveLength(5);

    // A pause longer than the retry window: the rows must still not be given up.
    await query("update outbox set give_up_at = now() - interval '1 hour' where kind = 'stream' and state = 'pending'");
    await setLicence(testLicence());
    // The first attempt after the pause fails; the rows stay queued for a retry.
    rx.answer = () => 500;
    await drain();
    expect(rx.received.length).toBeGreaterThanOrEqual(1);
    expect((await query("select 1 from outbox where kind = 'stream' and state = 'failed'")).length).toBe(0);
    rx.answer = () => 200;
    rx.received.length = 0;
    await query("update outbox set next_attempt_at = now() where kind = 'stream'");
    await drain();
    expect(sentEvents()).toEqual(["p1", "p2", "p3", "p4", "p5"]);
    const [after] = (await call(listStreams, { jar: admin })).json;
    expect(after.status).toMatchObject({ backlog: 0, paused: null });
  });

  it("under the free tier without a licence, delivery runs (enterprise for free)", async () => {
    await setLicence(null);
    await query("delete from users where username like 'pause-extra%' or username like 'extra%' or username in ('s1', 's2', 's3')");
    const [{ n }] = await query<{ n: number }>("select count(*)::int n from users");
    expect(n).toBeLessThanOrEqual(5);
    rx.received.length = 0;
    await query("insert into activity_log (username, event, module, description) values ('bulk', 'user_login', 'defguard', 'free')");
    await gather();
    await drain();
    expect(sentEvents()).toEqual(["free"]);
    expect((await call(listStreams, { jar: admin })).json[0].status.paused).toBeNull();
  });
});
