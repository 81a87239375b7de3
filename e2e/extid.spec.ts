/**
 * External OpenID sign-in end to end: a real oidc-provider (tests/upstream-oidc.ts, on
 * loopback) is set as the provider through Settings → OpenID; Chromium then signs a new
 * person in with the login page's "Sign in with …" button, through the provider's sign-in
 * page and the console's /auth/callback, to a signed-in console. A bad callback shows the
 * reason and leads back to the login page.
 */
import { randomBytes } from "node:crypto";
import { expect, test } from "@playwright/test";
import { adminPassword, apiClient, baseURL, signIn } from "./support";
import { startUpstream, type Upstream } from "../tests/upstream-oidc";
import { startDirectoryStandIns } from "../tests/directory-standins";

let up: Upstream;

test.beforeAll(async () => {
  up = await startUpstream({ redirectUris: [`${baseURL()}/auth/callback`] });
});

test.afterAll(async () => {
  // Other specs' login pages stay as they were: no external provider.
  const admin = await apiClient();
  const current = await admin.ctx.get("/api/v1/openid/provider");
  if (current.status() === 200) await admin.delete(`/api/v1/openid/provider/${encodeURIComponent(((await current.json()) as { provider: { name: string } }).provider.name)}`);
  await admin.dispose();
  await up?.close();
});

test("an admin sets the provider; a new person signs in with the button and lands in the console", async ({ page, browser }) => {
  const login = `e2e-${randomBytes(3).toString("hex")}`;
  up.accounts.set(login, { email: `${login}@corp.example`, given_name: "Ext", family_name: "Person", preferred_username: `${login}@corp.example` });

  // Settings → OpenID: custom provider, secret written once.
  await page.goto("/login");
  await signIn(page, "admin", adminPassword());
  // The first sign-in of a freshly started server can take a while on a loaded machine.
  await expect(page).not.toHaveURL(/\/login/, { timeout: 60_000 });
  await page.goto("/settings?tab=openid");
  await expect(page.getByTestId("openid-status")).toHaveText(/Not set/, { timeout: 30_000 });
  await page.getByTestId("openid-base-url").fill(up.issuer);
  await page.getByTestId("openid-client-id").fill(up.clientId);
  await page.getByTestId("openid-client-secret").fill(up.clientSecret);
  await page.getByTestId("openid-display-name").fill("Upstream IdP");
  await page.getByTestId("openid-username-handling").click();
  await page.getByTestId("openid-username-handling-PruneEmailDomain").click();
  await page.getByTestId("openid-save").click();
  await expect(page.locator('[data-testid="toast"][data-type="success"]')).toBeVisible();
  await expect(page.getByTestId("openid-status")).toHaveText(/Set: Upstream IdP/, { timeout: 30_000 });
  await page.reload();
  await expect(page.getByTestId("openid-client-secret")).toHaveValue("", { timeout: 30_000 });
  await expect(page.getByText("Stored; it is never shown. Leave empty to keep it.")).toBeVisible();
  expect(await page.content()).not.toContain(up.clientSecret);

  // A signed-out browser: the login page offers the provider.
  const ctx = await browser.newContext();
  const visitor = await ctx.newPage();
  await visitor.goto("/login");
  const button = visitor.getByTestId("login-openid");
  await expect(button).toHaveText("Sign in with Upstream IdP", { timeout: 30_000 });
  await button.click();
  await expect(visitor).toHaveURL(new RegExp(`^${up.issuer}/interaction/`), { timeout: 30_000 });
  await visitor.getByTestId("upstream-login").fill(login);
  await visitor.getByTestId("upstream-submit").click();
  // Back through /auth/callback to the profile of the account made on first sign-in.
  await expect(visitor).toHaveURL(/\/me$/, { timeout: 30_000 });
  const me = await visitor.evaluate(async () => (await fetch("/api/v1/me")).json());
  expect(me).toMatchObject({ username: login, email: `${login}@corp.example`, first_name: "Ext", last_name: "Person" });
  await ctx.close();
});

test("a callback that does not belong to a sign-in shows why and leads back to the login page", async ({ page }) => {
  await page.goto("/auth/callback?code=forged&state=forged");
  await expect(page.getByTestId("openid-callback-message")).toContainText("expired or was started in another browser");
  await page.getByTestId("openid-callback-back").click();
  await expect(page).toHaveURL(/\/login$/);
});

test("directory sync: Sync now shows the outcome in words and updates the last sync (Okta stand-in)", async ({ page }) => {
  // Okta's API lives at the configured Okta domain, so the stand-in needs no endpoint override.
  const dir = await startDirectoryStandIns({
    people: [{ email: "dina@corp.example", given: "Dina", family: "Dir", active: true }],
    groups: { "dir-crew": ["dina@corp.example"] },
  });
  try {
    const admin = await apiClient();
    await admin.ok(
      admin.post("/api/v1/openid/provider", {
        name: "Okta",
        base_url: dir.okta.base,
        client_id: "login-client",
        client_secret: "login-secret",
        display_name: "Okta",
        directory_sync_enabled: true,
        directory_sync_interval: 86_400,
        directory_sync_target: "groups",
        okta_dirsync_client_id: dir.okta.clientId,
        okta_private_jwk: dir.okta.privateJwk,
      }),
      201,
    );
    await admin.dispose();
    await page.goto("/login");
    await signIn(page, "admin", adminPassword());
    await expect(page).not.toHaveURL(/\/login/, { timeout: 60_000 });
    await page.goto("/settings?tab=openid");
    await expect(page.getByTestId("openid-sync-now")).toBeEnabled({ timeout: 30_000 });
    // The periodic job may have run the first sync already (it is due as soon as sync is on):
    // then this one has nothing left to change.
    await page.getByTestId("openid-sync-now").click();
    await expect(page.getByTestId("openid-sync-now-result")).toHaveText(/^Synchronised: 1 users and 1 groups read from the directory, (1 change|nothing to change)\.$/, { timeout: 30_000 });
    await expect(page.getByTestId("openid-sync-status")).toContainText("Last sync succeeded");
    await expect(page.getByTestId("openid-sync-status")).toContainText(/1 users and 1 groups read from the directory; [01] changes?/);
    await page.screenshot({ path: "test-results/openid-sync-now.png", fullPage: true });
    // The directory refuses the key: the error in words, and the last result says so.
    await dir.close();
    await page.getByTestId("openid-sync-now").click();
    await expect(page.getByTestId("openid-sync-now-result")).toContainText("Sync failed, nothing was changed:", { timeout: 30_000 });
    await expect(page.getByTestId("openid-sync-now-result")).toContainText("unreachable");
    await expect(page.getByTestId("openid-sync-status")).toContainText("Last sync failed");
    await page.screenshot({ path: "test-results/openid-sync-now-failed.png", fullPage: true });
  } finally {
    await dir.close();
  }
});

test("the VPN MFA callback page says why a confirmation is refused", async ({ page }) => {
  await page.goto("/openid/mfa/callback?code=forged&state=forged");
  await expect(page.getByTestId("openid-mfa-message")).toContainText("has expired or was not made by this console");
  await page.screenshot({ path: "test-results/openid-mfa-callback-refused.png" });
});
