/**
 * The licence gate: every operation declared `enterprise: true` in lib/openapi/operations.ts,
 * called as an admin under the free tier, over it without a licence, over it with a valid
 * licence, and over it with an expired one. Over the limits without a valid licence the answer
 * is 403 {msg, code: "license_required"} naming what is exceeded, and nothing is changed.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { OPERATIONS, type Operation } from "@/lib/openapi/operations";
import { call, createUser, query, setLicence, signIn, testLicence, type Handler, type Jar } from "@/tests/helpers";

const API_DIR = fileURLToPath(new URL("../../app/api/v1/", import.meta.url));
const GATED = OPERATIONS.filter((o) => o.enterprise);

async function handlerOf(op: Operation): Promise<Handler> {
  const file = join(API_DIR, ...op.path.split("/").filter(Boolean).map((s) => s.replace(/^\{(.+)\}$/, "[$1]")), "route.ts");
  const mod = (await import(file)) as Record<string, Handler>;
  return mod[op.method];
}

let admin: Jar;
const params = { id: "999999" };

async function callOp(op: Operation) {
  return call(await handlerOf(op), { method: op.method, jar: admin, params, body: ["GET", "DELETE"].includes(op.method) ? undefined : {} });
}

/** Rows of the tables enterprise routes write, to show a refused call changed nothing. */
async function snapshot() {
  const [r] = await query<{ rules: number; aliases: number; streams: number; settings: string; activity: number }>(`
    select (select count(*)::int from acl_rules) rules, (select count(*)::int from acl_aliases) aliases,
           (select count(*)::int from activity_log_streams) streams,
           (select concat_ws(',', admin_device_management, client_traffic_policy, only_client_activation) from settings where id = 1) settings,
           (select count(*)::int from activity_log) activity`);
  return r;
}

beforeAll(async () => {
  await createUser({ username: "gate-admin", isAdmin: true });
  admin = await signIn("gate-admin");
  await setLicence(null);
});

describe("the licence gate", () => {
  it("covers the enterprise routes the issue names", () => {
    const keys = GATED.map((o) => `${o.method} ${o.path}`);
    expect(keys).toContain("PATCH /settings_enterprise");
    expect(keys).toContain("POST /activity_log_stream");
    expect(keys).toContain("PUT /activity_log_stream/{id}");
    expect(keys.filter((k) => k.includes(" /acl/")).length).toBe(OPERATIONS.filter((o) => o.path.startsWith("/acl/")).length);
  });

  it("under the free tier without a licence, no enterprise route answers license_required", async () => {
    for (const op of GATED) {
      const res = await callOp(op);
      expect(res.json?.code, `${op.method} ${op.path}: ${res.status} ${res.text}`).not.toBe("license_required");
    }
  });

  it("over the free tier without a licence, every enterprise route answers 403 license_required and changes nothing", async () => {
    for (let i = 0; i < 5; i++) await createUser({ username: `gate-extra${i}` });
    const before = await snapshot();
    for (const op of GATED) {
      const res = await callOp(op);
      expect(res.status, `${op.method} ${op.path}`).toBe(403);
      expect(res.json.code, `${op.method} ${op.path}`).toBe("license_required");
      expect(res.json.msg).toMatch(/users 6\/5/);
      expect(res.json.msg).toMatch(/no licence/);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("routes not declared enterprise stay open over the limits (users, settings, webhooks)", async () => {
    const open = OPERATIONS.filter((o) => !o.enterprise && o.access === "admin" && o.method === "GET" && !o.path.includes("{"));
    expect(open.length).toBeGreaterThan(5);
    for (const op of open) {
      const res = await callOp(op);
      expect(res.json?.code, `${op.method} ${op.path}`).not.toBe("license_required");
    }
  });

  it("over the free tier with a valid licence, the routes work again", async () => {
    await setLicence(testLicence({ tier: "Business", validUntil: 30 }));
    for (const op of GATED) {
      const res = await callOp(op);
      expect(res.json?.code, `${op.method} ${op.path}: ${res.status} ${res.text}`).not.toBe("license_required");
    }
  });

  it("over the free tier with an expired licence, they are refused and the message says so", async () => {
    await setLicence(testLicence({ validUntil: -1 }));
    for (const op of GATED) {
      const res = await callOp(op);
      expect(res.status, `${op.method} ${op.path}`).toBe(403);
      expect(res.json).toMatchObject({ code: "license_required", msg: expect.stringMatching(/expired/) });
    }
  });

  it("over a licence's own limits, they are refused", async () => {
    await setLicence(testLicence({ limits: { users: 3, devices: 10, locations: 1, network_devices: 1 } }));
    const res = await callOp(GATED[0]);
    expect(res.status).toBe(403);
    expect(res.json.msg).toMatch(/users 6\/3/);
  });

  it("the gate runs after the access check: anonymous 401, a plain user 403 (admin required, or the gate on routes users may call)", async () => {
    await setLicence(null);
    await createUser({ username: "gate-plain" });
    const user = await signIn("gate-plain");
    for (const op of GATED) {
      const h = await handlerOf(op);
      expect((await call(h, { method: op.method, params })).status).toBe(401);
      const asUser = await call(h, { method: op.method, jar: user, params, body: ["GET", "DELETE"].includes(op.method) ? undefined : {} });
      expect(asUser.status, `${op.method} ${op.path}`).toBe(403);
      // Admin routes refuse a plain user before the gate; a route users may call (provisioning
      // their own YubiKey) passes the access check and meets the gate.
      if (op.access === "admin") expect(asUser.json.code, `${op.method} ${op.path}: ${asUser.text}`).toBeUndefined();
      else expect(asUser.json.code, `${op.method} ${op.path}: ${asUser.text}`).toBe("license_required");
    }
  });
});
