import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { api, apiRequest, ApiBadRequestError, ApiBadResponseError, stripNulls } from "./client";

function jsonResponse(body: unknown, status = 200): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json" },
  });
}

const fetchMock = vi.fn<typeof fetch>();

beforeEach(() => {
  fetchMock.mockReset();
  vi.stubGlobal("fetch", fetchMock);
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe("stripNulls", () => {
  it("drops null fields at every depth and null array items", () => {
    const input = {
      a: 1,
      b: null,
      c: { d: null, e: "x", f: { g: null, h: [1, null, { i: null, j: false }] } },
      k: [null, null],
      l: "",
      m: 0,
    };
    expect(stripNulls(input)).toEqual({ a: 1, c: { e: "x", f: { h: [1, { j: false }] } }, k: [], l: "", m: 0 });
    expect(Object.keys(stripNulls(input).c.f.h[1] as object)).toEqual(["j"]);
  });

  it("turns a bare null into undefined and leaves scalars alone", () => {
    expect(stripNulls(null)).toBeUndefined();
    expect(stripNulls("text")).toBe("text");
    expect(stripNulls(false)).toBe(false);
  });
});

describe("api client", () => {
  it("strips nulls from a successful answer", async () => {
    fetchMock.mockResolvedValue(jsonResponse({ username: "admin", phone: null, groups: ["admin", null] }));
    await expect(api.get("/me")).resolves.toEqual({ username: "admin", groups: ["admin"] });
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe("/api/v1/me");
    expect(init?.credentials).toBe("same-origin");
    expect(init?.signal).toBeUndefined();
  });

  it("returns undefined for a null or empty body", async () => {
    fetchMock.mockResolvedValueOnce(jsonResponse(null));
    await expect(api.get("/updates")).resolves.toBeUndefined();
    fetchMock.mockResolvedValueOnce(new Response(null, { status: 204 }));
    await expect(api.delete("/thing/1")).resolves.toBeUndefined();
  });

  it("keeps the status so callers can tell 200 from 201", async () => {
    fetchMock.mockResolvedValue(jsonResponse({ mfa_method: "OneTimePassword", totp_available: true }, 201));
    const res = await apiRequest("POST", "/auth", { username: "u", password: "p" });
    expect(res.status).toBe(201);
  });

  it("maps a 4xx answer to ApiBadRequestError with status, msg and field", async () => {
    fetchMock.mockResolvedValue(jsonResponse({ msg: "username: field is required", field: "username" }, 400));
    const err = await api.post("/auth", {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiBadRequestError);
    expect(err).toMatchObject({ status: 400, msg: "username: field is required", field: "username" });
  });

  it("maps 401 and 429 to ApiBadRequestError too", async () => {
    fetchMock.mockResolvedValueOnce(jsonResponse({ msg: "invalid username or password" }, 401));
    await expect(api.post("/auth", {})).rejects.toMatchObject({ name: "ApiBadRequestError", status: 401 });
    fetchMock.mockResolvedValueOnce(jsonResponse({ msg: "too many bad login attempts, try again in a few minutes" }, 429));
    await expect(api.post("/auth", {})).rejects.toMatchObject({ status: 429, field: undefined });
  });

  it("maps a 5xx answer to ApiBadResponseError", async () => {
    fetchMock.mockResolvedValueOnce(jsonResponse({ msg: "internal server error", request_id: "x" }, 500));
    const err = await api.get("/info").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiBadResponseError);
    expect(err).not.toBeInstanceOf(ApiBadRequestError);
    expect(err).toMatchObject({ status: 500, msg: "internal server error" });
    fetchMock.mockResolvedValueOnce(new Response("Bad Gateway", { status: 502 }));
    await expect(api.get("/info")).rejects.toMatchObject({ name: "ApiBadResponseError", status: 502 });
  });

  it("sends X-XSRF-TOKEN from the cookie on non-GET requests only", async () => {
    vi.stubGlobal("document", { cookie: "other=1; XSRF-TOKEN=abc%2Fdef; defguard_session=zzz" });
    fetchMock.mockImplementation(async () => jsonResponse({}));
    await api.get("/me");
    await api.post("/auth/logout");
    await api.put("/settings", { a: 1 });
    const headers = fetchMock.mock.calls.map(([, init]) => init?.headers as Record<string, string>);
    expect(headers[0]["X-XSRF-TOKEN"]).toBeUndefined();
    expect(headers[1]["X-XSRF-TOKEN"]).toBe("abc/def");
    expect(headers[2]["X-XSRF-TOKEN"]).toBe("abc/def");
    expect(headers[2]["Content-Type"]).toBe("application/json");
    expect(fetchMock.mock.calls[2][1]?.body).toBe('{"a":1}');
  });

  it("repeats array query parameters and skips undefined ones", async () => {
    fetchMock.mockResolvedValue(jsonResponse([]));
    await api.get("/activity_log", { query: { module: ["vpn", "client"], page: 2, search: undefined } });
    expect(fetchMock.mock.calls[0][0]).toBe("/api/v1/activity_log?module=vpn&module=client&page=2");
  });
});
