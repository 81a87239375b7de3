/**
 * GET /updates against a local HTTP feed: a newer release is answered in defguard's shape, an
 * older one is null, the feed is read once a day, and an unset, unreachable, failing or silent
 * feed answers null (with one log line) without holding the request.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as updatesGet } from "@/app/api/v1/updates/route";
import { availableUpdate, compareVersions, readFeed, resetUpdateCache, UPDATE_CACHE_MS } from "@/lib/platform/updates";
import { VERSION } from "@/lib/settings/info";
import { call, createUser, signIn, type Jar } from "@/tests/helpers";

let server: Server;
let base: string;
let hits = 0;
let answer: { status: number; body: string; hang?: boolean } = { status: 200, body: "{}" };
let admin: Jar;

beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    if (answer.hang) return; // never answers
    res.writeHead(answer.status, { "content-type": "application/json" });
    res.end(answer.body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await createUser({ username: "upd-admin", isAdmin: true });
  admin = await signIn("upd-admin");
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
afterEach(() => {
  delete process.env.DEFGUARD_UPDATE_URL;
  resetUpdateCache();
  hits = 0;
  vi.restoreAllMocks();
});

const newer = (() => {
  const [a, b, c] = VERSION.split(".").map(Number);
  return `${a}.${b}.${c + 1}`;
})();

describe("GET /updates", () => {
  it("is null at once when DEFGUARD_UPDATE_URL is unset, without asking anything", async () => {
    const fetchSpy = vi.spyOn(globalThis, "fetch");
    const res = await call(updatesGet, { jar: admin });
    expect(res.status).toBe(200);
    expect(res.text).toBe("null");
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it("answers a newer release in defguard's shape and reads the feed once a day", async () => {
    process.env.DEFGUARD_UPDATE_URL = `${base}/feed.json`;
    answer = { status: 200, body: JSON.stringify({ version: `v${newer}`, critical: true, notes: "## Fixes\n- a *bug*", release_notes_url: "https://example.com/notes", extra: 1 }) };
    const res = await call(updatesGet, { jar: admin });
    expect(res.json).toEqual({ version: newer, critical: true, notes: "## Fixes\n- a *bug*", release_notes_url: "https://example.com/notes" });
    await call(updatesGet, { jar: admin });
    expect(hits).toBe(1);
    // A day later the feed is read again; this time it names this very version: no update.
    answer = { status: 200, body: JSON.stringify({ version: VERSION }) };
    expect(await availableUpdate(Date.now() + UPDATE_CACHE_MS + 1000)).toBeNull();
    expect(hits).toBe(2);
  });

  it("an unreachable, failing, non-JSON or silent feed answers null with one log line", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const cases: [string, () => void, RegExp][] = [
      ["http://127.0.0.1:1/feed", () => {}, /unreachable/],
      [`${base}/500`, () => (answer = { status: 500, body: "oops" }), /HTTP 500/],
      [`${base}/html`, () => (answer = { status: 200, body: "<html>" }), /did not answer JSON/],
      [`${base}/nov`, () => (answer = { status: 200, body: "{}" }), /no version/],
      [`${base}/silent`, () => (answer = { status: 200, body: "", hang: true }), /no answer within 3 s/],
    ];
    for (const [url, setup, msg] of cases) {
      resetUpdateCache();
      warn.mockClear();
      setup();
      process.env.DEFGUARD_UPDATE_URL = url;
      const res = await call(updatesGet, { jar: admin });
      expect(res.status).toBe(200);
      expect(res.json).toBeNull();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0][0])).toMatch(msg);
      // Cached: the next poll does not wait on the feed again.
      await call(updatesGet, { jar: admin });
      expect(warn).toHaveBeenCalledTimes(1);
    }
    answer = { status: 200, body: "{}" };
  });

  it("reads the feed's error precisely", async () => {
    await expect(readFeed("http://127.0.0.1:1/x", 500)).rejects.toThrow(/update feed http:\/\/127\.0\.0\.1:1\/x unreachable/);
  });

  it("is for admins only", async () => {
    await createUser({ username: "upd-user" });
    const user = await signIn("upd-user");
    expect((await call(updatesGet, { jar: user })).status).toBe(403);
  });
});

describe("compareVersions", () => {
  it("compares numerically and ignores a leading v and suffixes", () => {
    expect(compareVersions("1.10.0", "1.9.9")).toBe(1);
    expect(compareVersions("v1.6.6", "1.6.6")).toBe(0);
    expect(compareVersions("1.6", "1.6.1")).toBe(-1);
    expect(compareVersions("2.0.0-rc1", "1.99.0")).toBe(1);
  });
});
