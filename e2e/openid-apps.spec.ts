/**
 * The OpenID Apps screen: add an app (name, several redirect URLs, scopes, enabled), its client
 * ID and secret with copy buttons, a new secret, disable (the authorization endpoint then shows
 * a page naming the disabled app) and enable, edit (a bad URL is refused on its field), delete
 * with confirmation. Every step is checked against the API as well as on screen.
 */
import { expect, test, type Page } from "@playwright/test";
import { apiClient, baseURL, message, signInAdmin, suffix } from "./support";

interface App {
  id: number;
  client_id: string;
  client_secret: string;
  name: string;
  redirect_uri: string[];
  scope: string[];
  enabled: boolean;
}

const toast = (page: Page, text: string) => page.locator('[data-testid="toast"][data-type="success"]').filter({ hasText: text });

async function appByName(name: string): Promise<App | undefined> {
  const api = await apiClient();
  const all = await api.ok<App[]>(api.ctx.get("/api/v1/oauth"));
  await api.dispose();
  return all.find((a) => a.name === name);
}

function authorizeUrl(app: App): string {
  const q = new URLSearchParams({ client_id: app.client_id, redirect_uri: app.redirect_uri[0], response_type: "code", scope: "openid", state: "s1", nonce: "n1" });
  return `/api/v1/oauth/authorize?${q}`;
}

test("OpenID apps: add, copy credentials, new secret, disable and enable, edit, delete", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL() });
  const name = `Wiki ${suffix()}`;
  const redirects = ["https://wiki.example.com/callback", "https://wiki.example.com/oauth2/alt"];

  await signInAdmin(page);
  await page.goto("/openid");
  await expect(page.getByTestId("openid-apps-table")).toBeVisible();

  // Add: two redirect URLs, scopes openid + profile + groups (email unticked), enabled.
  await page.getByTestId("add-openid-app").click();
  const dialog = page.getByTestId("openid-app-dialog");
  await dialog.getByTestId("openid-app-name").fill(name);
  await dialog.getByTestId("openid-app-redirects").fill(redirects.join("\n"));
  await dialog.getByTestId("openid-app-scope-email").click();
  await dialog.getByTestId("openid-app-scope-groups").click();
  await expect(dialog.getByTestId("openid-app-enabled")).toHaveAttribute("data-state", "checked");
  await dialog.getByTestId("openid-app-save").click();
  await expect(toast(page, message("en", "openidApps.added").replace("{name}", name))).toBeVisible();
  await expect(dialog).toBeHidden();

  const created = (await appByName(name))!;
  expect(created).toMatchObject({ redirect_uri: redirects, enabled: true });
  expect([...created.scope].sort()).toEqual(["groups", "openid", "profile"]);
  expect(created.client_id).toMatch(/\S{8,}/);
  expect(created.client_secret).toMatch(/\S{16,}/);

  // The new app's credentials are shown at once, each with a working copy button.
  const creds = page.getByTestId("openid-app-credentials-dialog");
  await expect(creds).toBeVisible();
  await expect(creds.getByTestId("openid-app-client-id").locator("input")).toHaveValue(created.client_id);
  await expect(creds.getByTestId("openid-app-client-secret").locator("input")).toHaveValue(created.client_secret);
  await creds.getByTestId("openid-app-client-secret").getByRole("button", { name: message("en", "openidApps.copy.copy") }).click();
  await expect(creds.getByTestId("openid-app-client-secret").getByRole("button", { name: message("en", "openidApps.copy.copied") })).toBeVisible();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(created.client_secret);
  await creds.getByTestId("openid-app-client-id").getByRole("button", { name: message("en", "openidApps.copy.copy") }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(created.client_id);
  await creds.getByTestId("openid-app-credentials-close").click();
  await expect(creds).toBeHidden();

  // The list: the row with both redirect URLs and its state.
  const row = page.locator(`[data-testid="openid-app-row"][data-app="${name}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByTestId("openid-app-redirect-list")).toHaveText(redirects.join(", "));
  await expect(row.getByTestId("openid-app-state")).toHaveText(message("en", "openidApps.enabled"));

  // A new secret, after confirmation; the new one is shown and the old one is gone.
  await page.getByTestId(`openid-app-actions-${name}`).click();
  await page.getByTestId("openid-app-regenerate").click();
  const confirm = page.getByRole("alertdialog");
  await confirm.getByRole("button", { name: message("en", "openidApps.actions.regenerate") }).click();
  await expect(toast(page, message("en", "openidApps.regenerated").replace("{name}", name))).toBeVisible();
  const renewed = (await appByName(name))!;
  expect(renewed.client_secret).not.toBe(created.client_secret);
  expect(renewed.client_id).toBe(created.client_id);
  await expect(creds.getByTestId("openid-app-client-secret").locator("input")).toHaveValue(renewed.client_secret);
  await creds.getByTestId("openid-app-credentials-close").click();

  // Disable: the authorization endpoint answers with a page naming the disabled app.
  await page.getByTestId(`openid-app-actions-${name}`).click();
  await page.getByTestId("openid-app-toggle").click();
  await expect(row.getByTestId("openid-app-state")).toHaveText(message("en", "openidApps.disabled"));
  expect((await appByName(name))!.enabled).toBe(false);
  const refused = await page.request.get(authorizeUrl(renewed), { maxRedirects: 0, headers: { "accept-language": "en" } });
  expect(refused.status()).toBe(400);
  const body = await refused.text();
  expect(body).toContain(name);
  expect(body).toContain("unauthorized_client");
  const tab = await context.newPage();
  await tab.goto(authorizeUrl(renewed));
  await expect(tab.locator("#description")).toContainText("is disabled");
  await expect(tab.locator("#description")).toContainText(name);
  await tab.close();

  // Enable again: the same request now goes on to the sign-in step.
  await page.getByTestId(`openid-app-actions-${name}`).click();
  await page.getByTestId("openid-app-toggle").click();
  await expect(row.getByTestId("openid-app-state")).toHaveText(message("en", "openidApps.enabled"));
  const accepted = await page.request.get(authorizeUrl(renewed), { maxRedirects: 0 });
  expect([302, 303]).toContain(accepted.status());
  expect(accepted.headers()["location"]).toContain("/api/v1/oauth/interaction/");

  // Edit: a bad URL is refused on its field and changes nothing; then rename and drop a URL.
  await row.getByRole("button", { name, exact: true }).click();
  const edit = page.getByTestId("openid-app-dialog");
  await expect(edit.getByTestId("openid-app-name")).toHaveValue(name);
  await expect(edit.getByTestId("openid-app-redirects")).toHaveValue(redirects.join("\n"));
  await expect(edit.getByTestId("openid-app-client-id").locator("input")).toHaveValue(renewed.client_id);
  await edit.getByTestId("openid-app-redirects").fill("not a url");
  await edit.getByTestId("openid-app-save").click();
  await expect(edit.getByText(message("en", "validation.invalidUrl"))).toBeVisible();
  expect((await appByName(name))!.redirect_uri).toEqual(redirects);
  const renamed = `${name} 2`;
  await edit.getByTestId("openid-app-name").fill(renamed);
  await edit.getByTestId("openid-app-redirects").fill(redirects[1]);
  await edit.getByTestId("openid-app-scope-profile").click();
  await edit.getByTestId("openid-app-save").click();
  await expect(toast(page, message("en", "openidApps.saved").replace("{name}", renamed))).toBeVisible();
  const edited = (await appByName(renamed))!;
  expect(edited).toMatchObject({ client_id: renewed.client_id, redirect_uri: [redirects[1]], enabled: true });
  expect([...edited.scope].sort()).toEqual(["groups", "openid"]);
  const renamedRow = page.locator(`[data-testid="openid-app-row"][data-app="${renamed}"]`);
  await expect(renamedRow.getByTestId("openid-app-redirect-list")).toHaveText(redirects[1]);

  await page.screenshot({ path: "test-results/openid-apps.png", fullPage: true });

  // Delete, after confirmation (cancel first: nothing happens).
  await page.getByTestId(`openid-app-actions-${renamed}`).click();
  await page.getByTestId("openid-app-delete").click();
  await expect(confirm).toContainText(renamed);
  await confirm.getByRole("button", { name: message("en", "common.cancel") }).click();
  await expect(confirm).toBeHidden();
  expect(await appByName(renamed)).toBeDefined();
  await page.getByTestId(`openid-app-actions-${renamed}`).click();
  await page.getByTestId("openid-app-delete").click();
  await confirm.getByRole("button", { name: message("en", "openidApps.actions.delete") }).click();
  await expect(toast(page, message("en", "openidApps.deleted").replace("{name}", renamed))).toBeVisible();
  await expect(renamedRow).toHaveCount(0);
  expect(await appByName(renamed)).toBeUndefined();

});
