/**
 * The security headers on a page and on an API answer, a page that hydrates under the
 * Content-Security-Policy without a single violation, cross-site form posts refused (415), and
 * malformed percent-escapes in a path answered with 400 instead of a server error.
 */
import { expect, request, test, type APIResponse } from "@playwright/test";
import { adminPassword, baseURL, signIn } from "./support";

function expectSecurityHeaders(res: APIResponse): string {
  const h = res.headers();
  const csp = h["content-security-policy"] ?? "";
  expect(csp).toContain("default-src 'self'");
  expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/]+={0,2}'/);
  expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
  expect(csp).not.toMatch(/script-src[^;]*'unsafe-eval'/);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).toContain("object-src 'none'");
  expect(h["x-frame-options"]).toBe("DENY");
  expect(h["referrer-policy"]).toBe("same-origin");
  expect(h["x-content-type-options"]).toBe("nosniff");
  // The run's DEFGUARD_URL is http://localhost:…: no HSTS on plain HTTP.
  expect(h["strict-transport-security"]).toBeUndefined();
  return csp;
}

test("a page and an API answer carry every security header; each page gets its own nonce", async () => {
  const ctx = await request.newContext({ baseURL: baseURL() });
  const page1 = await ctx.get("/login");
  expect(page1.status()).toBe(200);
  const csp1 = expectSecurityHeaders(page1);
  const nonce = /'nonce-([^']+)'/.exec(csp1)![1];
  // Next.js put the nonce on the scripts it wrote into the page.
  expect(await page1.text()).toContain(`nonce="${nonce}"`);
  const csp2 = expectSecurityHeaders(await ctx.get("/login"));
  expect(csp2).not.toBe(csp1);

  const api = await ctx.get("/api/v1/health");
  expect(api.status()).toBe(200);
  expectSecurityHeaders(api);
  expectSecurityHeaders(await ctx.get("/api/v1/me")); // a 401 too
  await ctx.dispose();
});

test("the console hydrates and works under the policy, with no CSP violation", async ({ page }) => {
  const violations: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy|Content-Security-Policy/i.test(m.text())) violations.push(m.text());
  });
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => console.error(`Content Security Policy violation: ${e.violatedDirective} ${e.blockedURI}`));
  });
  await page.goto("/login");
  await signIn(page, "admin", adminPassword());
  await expect(page).toHaveURL(/\/overview/);
  await expect(page.getByTestId("app-shell")).toBeVisible();
  // Client-side navigation needs the hydrated router.
  await page.getByTestId("nav-item-overview").click();
  await page.screenshot({ path: "test-results/csp-overview.png" });
  expect(violations).toEqual([]);
});

test("a cross-site form post to sign-in is refused with 415 and signs nobody in", async () => {
  const ctx = await request.newContext({ baseURL: baseURL() });
  const res = await ctx.post("/api/v1/auth", { form: { username: "admin", password: adminPassword() } });
  expect(res.status()).toBe(415);
  expect(await res.json()).toEqual({ msg: "the request body must be JSON, sent with Content-Type: application/json" });
  expect((await ctx.storageState()).cookies.find((c) => c.name === "defguard_session")).toBeUndefined();
  expect((await ctx.get("/api/v1/me")).status()).toBe(401);
  await ctx.dispose();
});

test("a malformed percent-escape answers 400: {msg} under /api, a page elsewhere", async () => {
  const ctx = await request.newContext({ baseURL: baseURL() });
  for (const path of ["/api/v1/user/%ZZ", "/api/v1/network/%E0%A4%A", "/api/v1/user/%"]) {
    const res = await ctx.get(path);
    expect(res.status(), path).toBe(400);
    expect(res.headers()["content-type"]).toMatch(/^application\/json/);
    expect((await res.json()).msg).toMatch(/malformed percent-escape/);
    expectSecurityHeaders(res);
  }
  const page = await ctx.get("/users/%ZZ");
  expect(page.status()).toBe(400);
  expect(page.headers()["content-type"]).toMatch(/^text\/html/);
  expect(await page.text()).toContain("Bad request");
  // A well-formed escape still reaches the route.
  expect((await ctx.get("/api/v1/user/%41dmin")).status()).toBe(401);
  await ctx.dispose();
});
