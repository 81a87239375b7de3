/**
 * The activity log (GET /activity_log, /activity_log/filters) fed by real actions, its
 * filters, search, date range and pagination, who sees what; and the settings that touch
 * secrets and mail: the SMTP password never leaves the server, the test e-mail goes through a
 * local SMTP sink, an unreachable SMTP server gives 503 and nothing crashes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as activityGet } from "@/app/api/v1/activity_log/route";
import { GET as filtersGet } from "@/app/api/v1/activity_log/filters/route";
import { POST as userCreate } from "@/app/api/v1/user/route";
import { POST as authPost } from "@/app/api/v1/auth/route";
import { GET as settingsGet, PATCH as settingsPatch, PUT as settingsPut } from "@/app/api/v1/settings/route";
import { POST as mailTest } from "@/app/api/v1/mail/test/route";
import { GET as healthGet } from "@/app/api/v1/health/route";
import { freePort } from "@/lib/db/embedded";
import { SMTP_NOT_CONFIGURED } from "@/lib/mail/service";
import { call, createUser, DEFAULT_PASSWORD, query, signIn, type Jar } from "./helpers";
import { startSmtpSink, useSmtpSink, type SmtpSink } from "./smtp-sink";

interface Entry {
  id: number;
  timestamp: string;
  user_id: number | null;
  username: string;
  location: string | null;
  ip: string | null;
  event: string;
  module: string;
  device: string | null;
  description: string | null;
}

const log = (jar: Jar, qs = "") => call(activityGet, { path: `/api/v1/activity_log${qs}`, jar });
const filters = (jar: Jar) => call(filtersGet, { path: "/api/v1/activity_log/filters", jar });
const login = (username: string, password: string, headers: Record<string, string> = {}) =>
  call(authPost, { method: "POST", path: "/api/v1/auth", body: { username, password }, headers });

/** All entries matching a query string (one big page). */
async function all(jar: Jar, qs = ""): Promise<Entry[]> {
  const res = await log(jar, `?page_size=500${qs ? `&${qs}` : ""}`);
  expect(res.status, res.text).toBe(200);
  expect(res.json.pagination.total_pages).toBe(1);
  return res.json.data;
}

const uniq = <T>(xs: T[]) => [...new Set(xs)].sort();

let root: Jar;
let bob: Jar;
let bobId: number;

afterEach(() => {
  vi.restoreAllMocks();
});

beforeAll(async () => {
  await createUser({ username: "root", isAdmin: true });
  root = await signIn("root");
  // Real actions: an admin creates bob, bob signs in, a wrong password, an unknown user.
  const created = await call(userCreate, {
    method: "POST",
    path: "/api/v1/user",
    jar: root,
    body: { username: "bob", first_name: "Bob", last_name: "Builder", email: "bob@corp.test", password: DEFAULT_PASSWORD },
  });
  expect(created.status, created.text).toBe(201);
  bobId = created.json.id;
  bob = await signIn("bob");
  expect((await login("bob", "Wrong-passw0rd")).status).toBe(401);
  expect((await login("mallory", "Wrong-passw0rd")).status).toBe(401);
  await signIn("bob", DEFAULT_PASSWORD, { "x-defguard-client-ip": "203.0.113.9" });
  // Events of domains that do not exist yet (VPN, enrollment), with fixed dates and locations.
  await query(
    `insert into activity_log (timestamp, user_id, username, location, ip, event, module, device, description) values
     ('2020-01-01T00:00:00Z', null, 'histo', 'office', '10.0.0.1', 'vpn_client_connected', 'vpn', 'laptop', 'connected to office'),
     ('2021-06-15T12:00:00Z', null, 'histo', 'home', '10.0.0.2', 'vpn_client_disconnected', 'vpn', 'phone', 'left home'),
     ('2022-03-01T08:30:00Z', null, 'histo', null, null, 'enrollment_completed', 'enrollment', null, '100% done')`,
  );
});

describe("GET /activity_log: events from real actions", () => {
  it("records user_added, user_login and user_login_failed with the client IP from x-defguard-client-ip", async () => {
    const rows = await all(root);
    expect(rows.find((r) => r.event === "user_added")).toMatchObject({
      username: "root",
      description: "Added user bob",
      ip: "127.0.0.1",
      module: "defguard",
    });
    const bobLogins = rows.filter((r) => r.username === "bob" && r.event === "user_login");
    expect(bobLogins.map((r) => r.ip).sort()).toEqual(["127.0.0.1", "203.0.113.9"]);
    expect(bobLogins.every((r) => r.user_id === bobId && r.module === "defguard")).toBe(true);
    expect(rows.find((r) => r.username === "bob" && r.event === "user_login_failed")).toMatchObject({
      user_id: bobId,
      ip: "127.0.0.1",
      description: "Wrong password",
    });
    expect(rows.find((r) => r.username === "mallory")).toMatchObject({ event: "user_login_failed", user_id: null, ip: "127.0.0.1" });
  });

  it("answers entries of the docs/api.md shape, newest first", async () => {
    const rows = await all(root);
    for (const r of rows) {
      expect(Object.keys(r).sort()).toEqual(
        ["description", "device", "event", "id", "ip", "location", "module", "timestamp", "user_id", "username"].sort(),
      );
      expect(new Date(r.timestamp).toISOString()).toBe(r.timestamp);
    }
    for (let i = 1; i < rows.length; i++) {
      const a = rows[i - 1];
      const b = rows[i];
      expect(a.timestamp >= b.timestamp, `${a.id} before ${b.id}`).toBe(true);
      if (a.timestamp === b.timestamp) expect(a.id).toBeGreaterThan(b.id);
    }
    // the entries inserted with old dates come last
    expect(rows.slice(-3).map((r) => r.event)).toEqual(["enrollment_completed", "vpn_client_disconnected", "vpn_client_connected"]);
  });
});

describe("GET /activity_log: filters", () => {
  it("username (repeated)", async () => {
    const one = await all(root, "username=bob");
    expect(one.map((r) => r.event).sort()).toEqual(["user_login", "user_login", "user_login_failed"]);
    expect(uniq(one.map((r) => r.username))).toEqual(["bob"]);
    const two = await all(root, "username=bob&username=mallory");
    expect(uniq(two.map((r) => r.username))).toEqual(["bob", "mallory"]);
    expect(two.length).toBe(one.length + 1);
    expect(await all(root, "username=nobody")).toEqual([]);
  });

  it("event (repeated)", async () => {
    const failed = await all(root, "event=user_login_failed");
    expect(failed.length).toBe(2);
    expect(uniq(failed.map((r) => r.event))).toEqual(["user_login_failed"]);
    const both = await all(root, "event=user_login_failed&event=user_added");
    expect(uniq(both.map((r) => r.event))).toEqual(["user_added", "user_login_failed"]);
    expect(both.length).toBe(3);
  });

  it("module (repeated)", async () => {
    const vpn = await all(root, "module=vpn");
    expect(vpn.map((r) => r.event)).toEqual(["vpn_client_disconnected", "vpn_client_connected"]);
    const two = await all(root, "module=vpn&module=enrollment");
    expect(two).toHaveLength(3);
    const [{ n }] = await query<{ n: number }>("select count(*)::int n from activity_log where module = 'defguard'");
    expect(await all(root, "module=defguard")).toHaveLength(n);
  });

  it("location (repeated)", async () => {
    expect((await all(root, "location=office")).map((r) => r.location)).toEqual(["office"]);
    expect((await all(root, "location=office&location=home")).map((r) => r.location)).toEqual(["home", "office"]);
    expect(await all(root, "location=mars")).toEqual([]);
  });

  it("filters combine (and)", async () => {
    expect(await all(root, "username=bob&event=user_added")).toEqual([]);
    const r = await all(root, "username=histo&module=vpn&location=home");
    expect(r.map((x) => x.event)).toEqual(["vpn_client_disconnected"]);
  });

  it("search: description, event, username, IP, location, device; case-insensitive; % is literal", async () => {
    const wrong = await all(root, "search=WRONG%20PASSWORD");
    expect(wrong.map((r) => r.username)).toEqual(["bob"]);
    expect((await all(root, "search=203.0.113")).map((r) => r.ip)).toEqual(["203.0.113.9"]);
    expect((await all(root, "search=offic")).map((r) => r.location)).toEqual(["office"]);
    expect((await all(root, "search=laptop")).map((r) => r.device)).toEqual(["laptop"]);
    expect(uniq((await all(root, "search=malLORY")).map((r) => r.username))).toEqual(["mallory"]);
    expect(uniq((await all(root, "search=login_failed")).map((r) => r.event))).toEqual(["user_login_failed"]);
    // "%" must not act as a wildcard: only the entry whose text contains "100%" matches
    expect((await all(root, `search=${encodeURIComponent("%")}`)).map((r) => r.description)).toEqual(["100% done"]);
    expect(await all(root, `search=${encodeURIComponent("_")}`)).toEqual(
      (await all(root)).filter((r) =>
        [r.username, r.event, r.description, r.location, r.device, r.ip].some((v) => v?.includes("_")),
      ),
    );
  });

  it("from/until (ISO), inclusive", async () => {
    const in2021 = await all(root, "from=2021-01-01T00:00:00Z&until=2021-12-31T23:59:59Z");
    expect(in2021.map((r) => r.event)).toEqual(["vpn_client_disconnected"]);
    const exact = await all(root, "from=2021-06-15T12:00:00.000Z&until=2021-06-15T12:00:00.000Z");
    expect(exact.map((r) => r.event)).toEqual(["vpn_client_disconnected"]);
    const before2021 = await all(root, "until=2020-12-31T23:59:59Z");
    expect(before2021.map((r) => r.event)).toEqual(["vpn_client_connected"]);
    const upTo2022 = await all(root, "from=2020-01-01T00:00:00Z&until=2022-12-31T00:00:00Z");
    expect(upTo2022).toHaveLength(3);
    // with an offset: 2021-06-15T14:00+02:00 is 12:00Z
    const offset = await all(root, `from=${encodeURIComponent("2021-06-15T14:00:00+02:00")}&until=${encodeURIComponent("2021-06-15T14:00:00+02:00")}`);
    expect(offset.map((r) => r.event)).toEqual(["vpn_client_disconnected"]);
    // everything recorded by this run is after 2023
    const [{ n }] = await query<{ n: number }>("select count(*)::int n from activity_log");
    expect(await all(root, "from=2023-01-01T00:00:00Z")).toHaveLength(n - 3);
  });
});

describe("GET /activity_log: pagination", () => {
  it("answers current_page, page_size, total_items, total_pages, next_page; the pages add up", async () => {
    const [{ n }] = await query<{ n: number }>("select count(*)::int n from activity_log");
    const full = await all(root);
    expect(full).toHaveLength(n);
    const pageSize = 3;
    const pages = Math.ceil(n / pageSize);
    const seen: number[] = [];
    for (let page = 1; page <= pages; page++) {
      const res = await log(root, `?page=${page}&page_size=${pageSize}`);
      expect(res.status).toBe(200);
      expect(res.json.pagination).toEqual({
        current_page: page,
        page_size: pageSize,
        total_items: n,
        total_pages: pages,
        next_page: page < pages ? page + 1 : null,
      });
      seen.push(...res.json.data.map((r: Entry) => r.id));
    }
    expect(seen).toEqual(full.map((r) => r.id));
    const beyond = await log(root, `?page=${pages + 1}&page_size=${pageSize}`);
    expect(beyond.json.data).toEqual([]);
    expect(beyond.json.pagination).toMatchObject({ current_page: pages + 1, next_page: null });
  });

  it("defaults to page 1 of 50", async () => {
    const res = await log(root);
    expect(res.json.pagination).toMatchObject({ current_page: 1, page_size: 50 });
  });

  it("counts only the filtered entries", async () => {
    const res = await log(root, "?event=user_login_failed&page_size=1");
    expect(res.json.pagination).toEqual({ current_page: 1, page_size: 1, total_items: 2, total_pages: 2, next_page: 2 });
  });
});

describe("who sees what", () => {
  it("an ordinary user sees only their own events, whatever they ask for", async () => {
    const own = await all(bob);
    const [{ n }] = await query<{ n: number }>("select count(*)::int n from activity_log where user_id = $1", [bobId]);
    expect(own).toHaveLength(n);
    expect(n).toBeGreaterThan(0);
    expect(own.every((r) => r.user_id === bobId)).toBe(true);
    expect(await all(bob, "username=root")).toEqual([]);
    expect(await all(bob, "username=mallory")).toEqual([]);
    expect(await all(bob, "module=vpn")).toEqual([]);
    expect(await all(bob, "search=Added%20user")).toEqual([]); // root's user_added mentions bob, but is root's
    expect((await log(bob, "?page_size=1")).json.pagination.total_items).toBe(n);
  });

  it("GET /activity_log/filters: distinct values, all for an admin, own for a user", async () => {
    const res = await filters(root);
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(["events", "locations", "modules", "usernames"]);
    expect(res.json.modules).toEqual(["defguard", "enrollment", "vpn"]);
    expect(res.json.locations).toEqual(["home", "office"]);
    expect(res.json.usernames).toEqual(expect.arrayContaining(["bob", "histo", "mallory", "root"]));
    expect(res.json.events).toEqual(expect.arrayContaining(["user_added", "user_login", "user_login_failed", "vpn_client_connected"]));
    const dbEvents = await query<{ event: string }>("select distinct event from activity_log");
    expect([...res.json.events].sort()).toEqual(dbEvents.map((r) => r.event).sort());

    const mine = await filters(bob);
    expect(mine.status).toBe(200);
    expect(mine.json.usernames).toEqual(["bob"]);
    expect(mine.json.modules).toEqual(["defguard"]);
    expect(mine.json.locations).toEqual([]);
    expect(mine.json.events).not.toContain("user_added");
    expect(mine.json.events).toEqual(expect.arrayContaining(["user_login", "user_login_failed"]));
  });

  it("anonymous callers get 401", async () => {
    expect((await log({})).status).toBe(401);
    expect((await filters({})).status).toBe(401);
  });
});

describe("GET /activity_log: bad query", () => {
  it.each([
    ["page=0", "page"],
    ["page=-1", "page"],
    ["page=abc", "page"],
    ["page=1.5", "page"],
    ["page_size=0", "page_size"],
    ["page_size=501", "page_size"],
    ["from=notadate", "from"],
    ["until=notadate", "until"],
    ["from=2021-13-45T00:00:00Z", "from"],
    [`search=${"s".repeat(257)}`, "search"],
    [`username=${"u".repeat(257)}`, "username"],
  ])("?%s → 400 naming %s", async (qs, field) => {
    const res = await log(root, `?${qs}`);
    expect(res.status, res.text).toBe(400);
    expect(res.json.msg).toMatch(new RegExp(`^${field}(\\.\\d+)?: `));
  });

  it("from=notadate answers the documented message 'date input not valid'", async () => {
    const res = await log(root, "?from=notadate");
    expect(res.json.msg).toBe("from: date input not valid");
  });

  it("a NUL byte in a sign-in username answers 4xx, not 500 (anonymous callers must not be able to cause 500s)", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await login("bo\u0000b", "Wrong-passw0rd");
    expect(res.status, res.text).toBeGreaterThanOrEqual(400);
    expect(res.status, res.text).toBeLessThan(500);
  });

  it("a NUL byte in search or a filter answers 400, not 500", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    for (const qs of ["search=a%00b", "username=a%00b", "event=%00"]) {
      const res = await log(root, `?${qs}`);
      expect(res.status, `${qs}: ${res.text}`).toBe(400);
    }
  });
});

// ------------------------------------------------------------------------------ settings

describe("settings: the SMTP password never leaves the server", () => {
  const SECRET = "Sm7p-S3cret-Value-xyzzy";

  it("PATCH stores it encrypted and answers it empty, with smtp_password_set", async () => {
    const res = await call(settingsPatch, {
      method: "PATCH",
      path: "/api/v1/settings",
      jar: root,
      body: { smtp_server: "mail.corp.test", smtp_port: 587, smtp_encryption: "StartTls", smtp_user: "mailer", smtp_password: SECRET, smtp_sender: "console@corp.test" },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ smtp_password_set: true, smtp_server: "mail.corp.test", smtp_port: 587, smtp_user: "mailer", smtp_configured: true });
    expect(res.json.smtp_password).toBe("");
    expect(res.text).not.toContain(SECRET);

    const got = await call(settingsGet, { path: "/api/v1/settings", jar: root });
    expect(got.status).toBe(200);
    expect(got.json.smtp_password_set).toBe(true);
    expect(got.json.smtp_password).toBe("");
    expect(got.json.smtp_encryption).toBe("StartTls");
    expect(got.json).not.toHaveProperty("smtp_password_enc");
    expect(got.text).not.toContain(SECRET);

    const [row] = await query<{ smtp_password_enc: string }>("select smtp_password_enc from settings where id = 1");
    expect(row.smtp_password_enc).toMatch(/^v1:/);
    expect(row.smtp_password_enc).not.toContain(SECRET);
    expect(row.smtp_password_enc).not.toContain(Buffer.from(SECRET).toString("base64url"));
    expect(got.text).not.toContain(row.smtp_password_enc);

    // nor in the activity log
    const activity = await log(root, "?page_size=500");
    expect(activity.text).not.toContain(SECRET);
    const dump = await query("select * from activity_log");
    expect(JSON.stringify(dump)).not.toContain(SECRET);
    expect(activity.json.data.find((r: Entry) => r.event === "settings_updated_partial")).toMatchObject({ username: "root" });
  });

  it("an empty or missing smtp_password keeps the stored one; null clears it", async () => {
    const enc = async () => (await query<{ e: string | null }>("select smtp_password_enc e from settings where id = 1"))[0].e;
    const stored = await enc();
    const patch = (body: unknown) => call(settingsPatch, { method: "PATCH", path: "/api/v1/settings", jar: root, body });
    expect((await patch({ smtp_password: "" })).json.smtp_password_set).toBe(true);
    expect(await enc()).toBe(stored);
    expect((await patch({ instance_name: "Corp VPN" })).json.smtp_password_set).toBe(true);
    expect(await enc()).toBe(stored);
    const put = await call(settingsPut, { method: "PUT", path: "/api/v1/settings", jar: root, body: { smtp_server: "mail.corp.test" } });
    expect(put.status).toBe(200);
    expect(await enc()).toBe(stored);
    const cleared = await patch({ smtp_password: null });
    expect(cleared.json.smtp_password_set).toBe(false);
    expect(await enc()).toBeNull();
  });

  it("rejects bad settings with 400 and changes nothing", async () => {
    const before = await query("select * from settings where id = 1");
    for (const body of [
      { smtp_port: 70000 },
      { smtp_port: "abc" },
      { smtp_server: "bad host!" },
      { smtp_encryption: "ssl" },
      { smtp_encryption: "tls" },
      { smtp_encryption: "starttls" },
      { smtp_sender: "not-an-email" },
      { instance_name: "" },
      { main_logo_url: "javascript:alert(1)" },
      { require_mfa: "yes" },
      { smtp_password: 12345 },
    ]) {
      const res = await call(settingsPatch, { method: "PATCH", path: "/api/v1/settings", jar: root, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.msg).toMatch(new RegExp(`^${Object.keys(body)[0]}: `));
    }
    expect(await query("select * from settings where id = 1")).toEqual(before);
  });

  it("a NUL byte in smtp_user answers 400, not 500, and changes nothing", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const before = await query("select * from settings where id = 1");
    const res = await call(settingsPatch, { method: "PATCH", path: "/api/v1/settings", jar: root, body: { smtp_user: "mail\u0000er" } });
    expect(res.status, res.text).toBe(400);
    expect(await query("select * from settings where id = 1")).toEqual(before);
  });

  it("an ordinary user can neither read nor change settings", async () => {
    expect((await call(settingsGet, { path: "/api/v1/settings", jar: bob })).status).toBe(403);
    const res = await call(settingsPatch, { method: "PATCH", path: "/api/v1/settings", jar: bob, body: { smtp_password: "x" } });
    expect(res.status).toBe(403);
  });
});

describe("POST /mail/test", () => {
  let sink: SmtpSink;
  const send = (to: unknown) => call(mailTest, { method: "POST", path: "/api/v1/mail/test", jar: root, body: { to } });

  beforeAll(async () => {
    sink = await startSmtpSink();
  });
  afterAll(async () => {
    await sink.close();
  });

  it("without SMTP answers 400 with the documented message", async () => {
    await query("update settings set smtp_server = null, smtp_port = null, smtp_sender = null where id = 1");
    const res = await send("ops@corp.test");
    expect(res.status).toBe(400);
    expect(res.json.msg).toBe(SMTP_NOT_CONFIGURED);
  });

  it("rejects a bad address with 400", async () => {
    await useSmtpSink(sink);
    const n = sink.messages.length;
    for (const to of ["not-an-email", "", 5, null, "a@b.c\r\nBcc: victim@corp.test"]) {
      const res = await send(to);
      expect(res.status, String(to)).toBe(400);
      expect(res.json.msg).toMatch(/^to: /);
    }
    expect(sink.messages.length).toBe(n);
  });

  it("delivers a test message through the configured server and records smtp_test_sent", async () => {
    await useSmtpSink(sink);
    const n = sink.messages.length;
    const res = await send("ops@corp.test");
    expect(res.status, res.text).toBe(200);
    const mail = await sink.next(n);
    expect(mail.to).toEqual(["ops@corp.test"]);
    expect(mail.from).toBe("console@example.com");
    expect(mail.subject).toMatch(/test message/);
    const [ev] = await query<{ username: string; description: string }>(
      "select username, description from activity_log where event = 'smtp_test_sent' order by id desc limit 1",
    );
    expect(ev).toEqual({ username: "root", description: "Test e-mail sent to ops@corp.test" });
  });

  it("an unreachable SMTP server answers 503 with a message; nothing crashes and the next send works", async () => {
    const closed = await freePort();
    await query("update settings set smtp_port = $1 where id = 1", [closed]);
    const errors = vi.spyOn(console, "error").mockImplementation(() => {});
    const [{ n: before }] = await query<{ n: number }>("select count(*)::int n from activity_log where event = 'smtp_test_sent'");
    const res = await send("ops@corp.test");
    expect(res.status, res.text).toBe(503);
    expect(res.json.msg).toBe("sending e-mail failed: cannot connect to the SMTP server");
    expect(res.json).not.toHaveProperty("request_id"); // a handled failure, not a 500
    expect(errors).toHaveBeenCalled();
    const [{ n: after }] = await query<{ n: number }>("select count(*)::int n from activity_log where event = 'smtp_test_sent'");
    expect(after).toBe(before);

    expect((await call(healthGet, { path: "/api/v1/health" })).status).toBe(200);
    await useSmtpSink(sink);
    const count = sink.messages.length;
    expect((await send("ops@corp.test")).status).toBe(200);
    expect((await sink.next(count)).to).toEqual(["ops@corp.test"]);
  });
});
