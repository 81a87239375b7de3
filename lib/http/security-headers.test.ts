import { describe, expect, it } from "vitest";
import { contentSecurityPolicy, hasMalformedEscape, malformedPathAnswer, securityHeaders } from "./security-headers";

describe("security headers", () => {
  it("HSTS only when the public URL is https", () => {
    expect(securityHeaders("n", { publicUrl: "https://vpn.example.com" })["strict-transport-security"]).toMatch(/^max-age=\d+/);
    expect(securityHeaders("n", { publicUrl: "http://localhost:8000" })["strict-transport-security"]).toBeUndefined();
  });

  it("scripts only from the console, with the nonce or the theme script's hash; eval only in development", () => {
    const csp = contentSecurityPolicy("abc123");
    expect(csp).toMatch(/script-src 'self' 'nonce-abc123' 'sha256-[A-Za-z0-9+/]+=*'(;|$)/);
    expect(csp).not.toContain("unsafe-eval");
    expect(contentSecurityPolicy("abc123", true)).toContain("'unsafe-eval'");
    expect(csp).toContain("frame-ancestors 'none'");
  });
});

describe("malformed percent-escapes", () => {
  it.each(["/api/v1/user/%ZZ", "/api/v1/user/%", "/api/v1/user/%E0%A4%A", "/users/a%2", "/api/v1/user/%C0%AF?x=1"])("%s is malformed", (url) => {
    expect(hasMalformedEscape(url)).toBe(true);
  });
  it.each(["/api/v1/user/admin", "/api/v1/user/%41dmin", "/api/v1/user/a%2Fb", "/users?q=%ZZ", "/%E2%82%AC"])("%s is fine", (url) => {
    expect(hasMalformedEscape(url)).toBe(false);
  });
  it("answers JSON {msg} under /api and a page elsewhere", () => {
    const api = malformedPathAnswer("/api/v1/user/%ZZ");
    expect(api.status).toBe(400);
    expect(JSON.parse(api.body).msg).toMatch(/malformed percent-escape/);
    expect(malformedPathAnswer("/users/%ZZ").contentType).toMatch(/^text\/html/);
  });
});
