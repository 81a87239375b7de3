import { describe, expect, it } from "vitest";
import { safeReturnPath } from "./page-guard";

describe("safeReturnPath", () => {
  it("accepts same-origin paths with query and hash", () => {
    expect(safeReturnPath("/users")).toBe("/users");
    expect(safeReturnPath("/users?search=a%20b&x=1#top")).toBe("/users?search=a%20b&x=1#top");
    expect(safeReturnPath("/")).toBe("/");
  });

  it("rejects absolute, protocol-relative, backslash and control-character URLs", () => {
    for (const r of [
      "//evil.example",
      "//evil.example/path",
      "/\\evil.example",
      "\\\\evil.example",
      "https://evil.example/",
      "javascript:alert(1)",
      "evil.example",
      "/\tevil",
      "/\n/evil.example",
    ]) {
      expect(safeReturnPath(r), r).toBeNull();
    }
  });

  it("keeps encoded characters encoded, so they cannot turn into a host", () => {
    expect(safeReturnPath("/%2F%2Fevil.example")).toBe("/%2F%2Fevil.example");
  });

  it("rejects non-strings and loops back to the login page", () => {
    expect(safeReturnPath(undefined)).toBeNull();
    expect(safeReturnPath(["/a", "/b"])).toBeNull();
    expect(safeReturnPath("/login")).toBeNull();
    expect(safeReturnPath("/login?r=/x")).toBeNull();
  });
});
