/**
 * Webhook delivery through the outbox, against real local HTTP receivers and the real
 * PostgreSQL: what is queued (and when not), the headers and signature, retries after 5xx,
 * after the receiver being down and after a timeout, no retry after 4xx, order per webhook,
 * a crash in the middle of a backlog, and two processes sharing the work.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createUser as createUserRow, query, signIn, call } from "@/tests/helpers";
import { startReceiver, type Receiver } from "@/tests/http-receiver";
import { createUser, deleteUser, updateUser } from "@/lib/users/service";
import { SYSTEM_ACTOR } from "@/lib/activity/service";
import { transaction } from "@/lib/events";
import { deliverDue, retryDelaySeconds } from "@/lib/outbox/worker";
import { verifySignature } from "@/lib/outbox/signature";
import { createWebhook, setWebhookEnabled } from "./service";
import { POST as retryPost } from "@/app/api/v1/webhook/[id]/delivery/[deliveryId]/retry/route";
import { GET as deliveriesGet } from "@/app/api/v1/webhook/[id]/delivery/route";

const TOKEN = "s3cret-token-for-tests";
let rx: Receiver;
let n = 0;
const uname = () => `hookuser${++n}`;

async function newUser(username = uname()) {
  return createUser(SYSTEM_ACTOR, { username, first_name: "Hook", last_name: "User", email: `${username}@example.com`, phone: null, password: null });
}

/** Run delivery passes until nothing is due (or `ms` passed). */
async function drain(ms = 15_000) {
  const until = Date.now() + ms;
  for (;;) {
    const handled = await deliverDue();
    if (handled > 0) continue;
    const [{ due }] = await query<{ due: number }>("select count(*)::int due from outbox where state = 'pending' and next_attempt_at <= now()");
    if (!due || Date.now() > until) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function makeHook(url = rx.url, extra: Partial<Parameters<typeof createWebhook>[1]> = {}) {
  return createWebhook(SYSTEM_ACTOR, {
    url,
    description: "test",
    token: TOKEN,
    enabled: true,
    on_user_created: true,
    on_user_deleted: true,
    on_user_modified: true,
    on_hwkey_provision: false,
    ...extra,
  });
}

beforeAll(async () => {
  await createUserRow({ username: "root", isAdmin: true });
  rx = await startReceiver();
});
afterAll(async () => {
  await rx.close();
});
beforeEach(async () => {
  await query("delete from outbox");
  await query("delete from webhooks");
  rx.received.length = 0;
  rx.answer = () => 200;
  delete process.env.DEFGUARD_OUTBOX_RETRY_BASE_MS;
  delete process.env.DEFGUARD_OUTBOX_TIMEOUT_MS;
});

describe("queueing", () => {
  it("queues a delivery in the change's transaction, and none for a rolled-back change", async () => {
    await makeHook();
    const u = await newUser();
    const rows = await query<{ event: string; payload: string; state: string }>("select event, payload, state from outbox");
    expect(rows).toHaveLength(1);
    expect(rows[0].event).toBe("user_created");
    expect(JSON.parse(rows[0].payload).username).toBe(u.username);

    await expect(
      transaction(async (_tx, emit) => {
        emit({ type: "user.deleted", userId: u.id, username: u.username });
        throw new Error("rolled back");
      }),
    ).rejects.toThrow("rolled back");
    expect(await query("select 1 from outbox")).toHaveLength(1);
  });

  it("queues only for enabled webhooks subscribed to the event", async () => {
    const a = await makeHook(rx.url, { on_user_created: false, on_user_modified: true });
    const b = await makeHook();
    await setWebhookEnabled(SYSTEM_ACTOR, String(b.id), false);
    await newUser();
    expect(await query("select 1 from outbox")).toHaveLength(0);
    void a;
  });
});

describe("sending", () => {
  it("POSTs defguard's body and headers with a signature the receiver can verify", async () => {
    await makeHook();
    const u = await newUser();
    await updateUser(SYSTEM_ACTOR, true, u.username, { username: u.username, first_name: "Changed", last_name: "User", email: u.email, phone: null });
    await deleteUser(SYSTEM_ACTOR, u.username);
    await drain();
    const events = rx.received.map((r) => r.headers["x-defguard-event"]);
    expect(events).toEqual(["user_created", "user_modified", "user_deleted"]);
    expect(JSON.parse(rx.received[1].body).first_name).toBe("Changed");
    for (const r of rx.received) {
      expect(r.method).toBe("POST");
      expect(r.headers.authorization).toBe(`Bearer ${TOKEN}`);
      expect(r.headers["content-type"]).toBe("application/json");
      expect(r.headers["x-defguard-delivery"]).toMatch(/^[0-9a-f-]{36}$/);
      expect(verifySignature(TOKEN, r.body, String(r.headers["x-defguard-signature"]))).toBe(true);
      expect(verifySignature("another-token", r.body, String(r.headers["x-defguard-signature"]))).toBe(false);
      expect(verifySignature(TOKEN, r.body + " ", String(r.headers["x-defguard-signature"]))).toBe(false);
    }
    const created = JSON.parse(rx.received[0].body);
    expect(created).toMatchObject({ username: u.username, email: u.email, first_name: "Hook" });
    expect(JSON.parse(rx.received.at(-1)!.body)).toEqual({ username: u.username });
    const states = await query<{ state: string; last_status: number }>("select state, last_status from outbox");
    expect(states.every((s) => s.state === "delivered" && s.last_status === 200)).toBe(true);
  });

  it("retries after a 500 with the same delivery id, first retry within 30 s", async () => {
    await makeHook();
    await newUser();
    rx.answer = () => 500;
    await deliverDue();
    const [row] = await query<{ state: string; attempts: number; wait: number; last_status: number; last_error: string }>(
      "select state, attempts, extract(epoch from next_attempt_at - now())::float wait, last_status, last_error from outbox",
    );
    expect(row).toMatchObject({ state: "pending", attempts: 1, last_status: 500 });
    expect(row.wait).toBeGreaterThan(0);
    expect(row.wait).toBeLessThanOrEqual(30);
    expect(row.last_error).toContain("500");
    // Not due yet: nothing is sent again.
    await deliverDue();
    expect(rx.received).toHaveLength(1);
    rx.answer = () => 200;
    await query("update outbox set next_attempt_at = now()");
    await drain();
    expect(rx.received).toHaveLength(2);
    expect(rx.received[0].headers["x-defguard-delivery"]).toBe(rx.received[1].headers["x-defguard-delivery"]);
    expect((await query<{ state: string }>("select state from outbox"))[0].state).toBe("delivered");
  });

  it("backs off exponentially with jitter and keeps retrying for a day", () => {
    const lo = [1, 2, 3, 4, 5, 6].map((a) => retryDelaySeconds(a, () => 0));
    const hi = [1, 2, 3, 4, 5, 6].map((a) => retryDelaySeconds(a, () => 0.999));
    expect(hi[0]).toBeLessThanOrEqual(30);
    for (let i = 1; i < lo.length; i++) expect(lo[i]).toBeGreaterThan(lo[i - 1]);
    expect(retryDelaySeconds(40, () => 1)).toBeLessThanOrEqual(3600);
    let total = 0;
    let attempts = 0;
    while (total < 86_400) total += retryDelaySeconds(++attempts, () => 0.5);
    expect(attempts).toBeGreaterThan(20);
  });

  it("retries while the receiver is down and delivers once it is back", async () => {
    process.env.DEFGUARD_OUTBOX_RETRY_BASE_MS = "100";
    await makeHook();
    await newUser();
    await rx.close();
    await deliverDue();
    const [row] = await query<{ state: string; attempts: number; last_error: string; last_status: number | null }>("select state, attempts, last_error, last_status from outbox");
    expect(row).toMatchObject({ state: "pending", attempts: 1, last_status: null });
    expect(row.last_error).toMatch(/ECONNREFUSED/);
    await rx.reopen();
    await new Promise((r) => setTimeout(r, 150));
    await drain();
    expect(rx.received).toHaveLength(1);
    expect((await query<{ state: string }>("select state from outbox"))[0].state).toBe("delivered");
  });

  it("gives up on a 4xx at once (no retry) and goes on with the next delivery", async () => {
    await makeHook();
    await newUser();
    await newUser();
    rx.answer = (r) => (rx.received.indexOf(r) === 0 ? 400 : 200);
    await drain();
    await new Promise((r) => setTimeout(r, 100));
    await drain();
    expect(rx.received).toHaveLength(2);
    const rows = await query<{ state: string; attempts: number; last_status: number }>("select state, attempts, last_status from outbox order by id");
    expect(rows).toEqual([
      { state: "failed", attempts: 1, last_status: 400 },
      { state: "delivered", attempts: 1, last_status: 200 },
    ]);
  });

  it("retries a 429 and a timeout; a hanging receiver does not slow user changes", async () => {
    process.env.DEFGUARD_OUTBOX_TIMEOUT_MS = "300";
    await makeHook();
    await newUser();
    rx.answer = () => "hang";
    const pass = deliverDue();
    const t0 = performance.now();
    await newUser();
    expect(performance.now() - t0).toBeLessThan(250);
    await pass;
    let [row] = await query<{ state: string; last_error: string }>("select state, last_error from outbox order by id limit 1");
    expect(row.state).toBe("pending");
    expect(row.last_error).toMatch(/no answer within/);
    rx.answer = () => 429;
    await query("update outbox set next_attempt_at = now()");
    await deliverDue();
    [row] = await query<{ state: string; last_error: string }>("select state, last_error from outbox order by id limit 1");
    expect(row).toMatchObject({ state: "pending", last_error: expect.stringContaining("429") });
    rx.answer = () => "garbage";
    await query("update outbox set next_attempt_at = now()");
    await deliverDue();
    [row] = await query<{ state: string; last_error: string }>("select state, last_error from outbox order by id limit 1");
    expect(row.state).toBe("pending");
  });

  it("keeps order per webhook: nothing overtakes a delivery being retried", async () => {
    process.env.DEFGUARD_OUTBOX_RETRY_BASE_MS = "50";
    await makeHook();
    const names = [uname(), uname(), uname(), uname(), uname()];
    for (const u of names) await newUser(u);
    let failures = 0;
    rx.answer = (r) => (JSON.parse(r.body).username === names[1] && failures++ < 2 ? 503 : 200);
    await drain();
    const firstSeen = [...new Set(rx.received.filter((r) => r.headers["x-defguard-event"] === "user_created").map((r) => JSON.parse(r.body).username))];
    expect(firstSeen).toEqual(names);
    expect(rx.received).toHaveLength(7);
  });

  it("shows a delivery log and retries a failed delivery now", async () => {
    const jar = await signIn("root");
    const hook = await makeHook();
    rx.answer = () => 404;
    await newUser();
    await drain();
    const log = await call(deliveriesGet, { jar, params: { id: String(hook.id) } });
    expect(log.status).toBe(200);
    expect(log.json).toHaveLength(1);
    expect(log.json[0]).toMatchObject({ event: "user_created", state: "failed", attempts: 1, response_code: 404, next_attempt_at: null });
    rx.answer = () => 200;
    const retry = await call(retryPost, { method: "POST", jar, params: { id: String(hook.id), deliveryId: log.json[0].id } });
    expect(retry.status).toBe(200);
    await drain();
    const after = await call(deliveriesGet, { jar, params: { id: String(hook.id) } });
    expect(after.json[0]).toMatchObject({ state: "delivered", attempts: 2, response_code: 200 });
    const again = await call(retryPost, { method: "POST", jar, params: { id: String(hook.id), deliveryId: log.json[0].id } });
    expect(again.status).toBe(404);
    const bad = await call(retryPost, { method: "POST", jar, params: { id: String(hook.id), deliveryId: "nope" } });
    expect(bad.status).toBe(404);
    expect(bad.json.msg).toBeTruthy();
  });
});

describe("secrets", () => {
  it("never writes the token to the log, whatever fails", async () => {
    const lines: string[] = [];
    for (const m of ["error", "warn", "log", "info"] as const) {
      vi.spyOn(console, m).mockImplementation((...args: unknown[]) => void lines.push(args.map((a) => (a instanceof Error ? `${a.stack}` : String(a))).join(" ")));
    }
    try {
      const hook = await makeHook();
      await newUser();
      rx.answer = () => 500;
      await deliverDue();
      await query("update outbox set next_attempt_at = now()");
      // A stored token that no longer decrypts (e.g. a changed instance key): the pass fails loudly.
      await query("update webhooks set token = 'v1:AAAA:BBBB:CCCC' where id = $1", [hook.id]);
      await deliverDue();
      expect(lines.join("\n")).toMatch(/\[outbox\] delivery to webhook/);
      const rows = await query<{ last_error: string | null }>("select last_error from outbox");
      expect(JSON.stringify(rows) + lines.join("\n")).not.toContain(TOKEN);
    } finally {
      vi.restoreAllMocks();
    }
  });
});

describe("several processes", () => {
  const children: ChildProcess[] = [];
  const startChild = (env: Record<string, string> = {}) =>
    new Promise<ChildProcess>((resolve, reject) => {
      const child = spawn(process.execPath, ["--import", "./scripts/server-only-hook.mjs", "--import", "tsx", "tests/outbox-child.ts"], {
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.push(child);
      let err = "";
      child.stderr!.on("data", (d) => (err += d));
      child.stdout!.on("data", (d) => String(d).includes("ready") && resolve(child));
      child.on("exit", (code) => reject(new Error(`outbox child exited (${code}): ${err}`)));
    });
  afterEach(async () => {
    for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
  });

  async function backlog(count: number) {
    await makeHook();
    for (let i = 0; i < count; i++) await newUser();
    return (await query<{ delivery_id: string }>("select delivery_id::text from outbox order by id")).map((r) => r.delivery_id);
  }

  it("a console killed in the middle of a backlog loses nothing: the rest is delivered, in order", async () => {
    process.env.DEFGUARD_OUTBOX_LEASE_S = "2";
    try {
      const ids = await backlog(150);
      rx.answer = () => ({ status: 200, delayMs: 5 });
      const child = await startChild({ DEFGUARD_OUTBOX_LEASE_S: "2" });
      await rx.waitFor(40);
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
      const sentBefore = rx.received.length;
      expect(sentBefore).toBeLessThan(150);
      // The dead process's claims expire after the lease; then this process delivers the rest.
      await new Promise((r) => setTimeout(r, 2100));
      await drain(30_000);
      const got = rx.received.map((r) => String(r.headers["x-defguard-delivery"]));
      expect(new Set(got)).toEqual(new Set(ids));
      // At least once: only the request in flight at the kill may arrive twice.
      expect(got.length - new Set(got).size).toBeLessThanOrEqual(1);
      const firstSeen = [...new Set(got)];
      expect(firstSeen).toEqual(ids);
      expect(await query("select 1 from outbox where state <> 'delivered'")).toHaveLength(0);
    } finally {
      delete process.env.DEFGUARD_OUTBOX_LEASE_S;
    }
  }, 60_000);

  it("two console processes deliver each event once", async () => {
    const ids = await backlog(120);
    // A second webhook, so both processes have a target to work on at the same time.
    const rx2 = await startReceiver();
    try {
      await makeHook(rx2.url);
      for (let i = 0; i < 60; i++) await newUser();
      const total = (await query("select 1 from outbox")).length;
      rx.answer = rx2.answer = () => ({ status: 200, delayMs: 2 });
      await startChild();
      await drain(30_000);
      const until = Date.now() + 20_000;
      while ((await query("select 1 from outbox where state <> 'delivered'")).length && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      const got = [...rx.received, ...rx2.received].map((r) => String(r.headers["x-defguard-delivery"]));
      expect(got.length).toBe(total);
      expect(new Set(got).size).toBe(total);
      expect(ids.every((id) => got.includes(id))).toBe(true);
    } finally {
      await rx2.close();
    }
  }, 60_000);
});
