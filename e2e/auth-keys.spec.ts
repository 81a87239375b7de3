/**
 * API tokens and authentication keys on the profile, end to end: an admin creates an API token
 * (shown once, with a copy button) that then works as `Authorization: Bearer` without a cookie
 * and stops working once deleted; adds an SSH key (a malformed key is refused on its field and
 * nothing is added), which /ssh_authorized_keys then serves.
 */
import { expect, request, test } from "@playwright/test";
import { apiClient, baseURL, signIn, suffix } from "./support";

const SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOTIOiZm+i4w4wG/650Ii/dRPX8XAmnGa0vDG3ail3SA e2e@example.com";

test("create an API token and an SSH key in the profile", async ({ page }) => {
  const username = `keys-${suffix()}`;
  const password = "Passw0rd!x";
  const api = await apiClient();
  await api.ok(api.post("/api/v1/user", { username, first_name: "Kay", last_name: "Keys", email: `${username}@example.com`, password }), 201);
  await api.ok(api.post("/api/v1/group/admin", { username }));

  await page.goto("/login");
  await signIn(page, username, password);
  await expect(page).not.toHaveURL(/\/login/);
  await page.goto("/me");

  // API token: named, shown once with a copy button, listed by name only.
  const tokens = page.getByTestId("api-tokens");
  await expect(tokens).toBeVisible();
  await tokens.getByTestId("api-token-add").click();
  const dialog = page.getByTestId("api-token-dialog");
  await dialog.getByTestId("api-token-name").fill("deploy script");
  await dialog.getByTestId("api-token-submit").click();
  const tokenField = dialog.getByTestId("api-token-value").locator("input");
  await expect(tokenField).toHaveValue(/^dg-[A-Za-z0-9]{32}$/);
  await expect(dialog.getByTestId("api-token-value").getByRole("button")).toBeVisible();
  const token = await tokenField.inputValue();
  await dialog.getByTestId("api-token-done").click();
  await expect(dialog).toHaveCount(0);
  const row = tokens.locator('[data-testid="api-token-row"][data-name="deploy script"]');
  await expect(row).toBeVisible();
  await expect(tokens).not.toContainText(token);

  // The token works without a cookie.
  const bearer = await request.newContext({ baseURL: baseURL(), extraHTTPHeaders: { authorization: `Bearer ${token}` } });
  const me = await bearer.get("/api/v1/me");
  expect(me.status()).toBe(200);
  expect((await me.json()).username).toBe(username);

  // SSH key: a malformed key is refused on its field, then a valid one is added.
  const keys = page.getByTestId("auth-keys");
  await keys.getByTestId("auth-key-add").click();
  const keyDialog = page.getByTestId("auth-key-dialog");
  await keyDialog.getByTestId("auth-key-name").fill("laptop");
  await keyDialog.getByTestId("auth-key-key").fill("ssh-ed25519 AAAAnot-a-key");
  await keyDialog.getByTestId("auth-key-submit").click();
  await expect(keyDialog.getByTestId("auth-key-key")).toHaveAttribute("aria-invalid", "true");
  await expect(keyDialog).toBeVisible();
  expect(await api.ok<unknown[]>(api.get(`/api/v1/user/${username}/auth_key`))).toEqual([]);

  await keyDialog.getByTestId("auth-key-key").fill(SSH_KEY);
  await keyDialog.getByTestId("auth-key-submit").click();
  await expect(keyDialog).toHaveCount(0);
  await expect(keys.locator('[data-testid="auth-key-row"][data-name="laptop"]')).toBeVisible();
  const served = await bearer.get(`/api/v1/ssh_authorized_keys?username=${username}`);
  expect(await served.text()).toBe(SSH_KEY);

  // Deleting the token (with confirmation) makes it stop working.
  await row.getByTestId("api-token-actions").click();
  await page.getByTestId("api-token-delete").click();
  await page.getByRole("alertdialog").getByRole("button", { name: /delete/i }).click();
  await expect(row).toHaveCount(0);
  expect((await bearer.get("/api/v1/me")).status()).toBe(401);

  await bearer.dispose();
  await api.dispose();
});
