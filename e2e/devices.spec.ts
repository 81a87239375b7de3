/**
 * My devices end to end: with a location in place (API), a user adds a device with a key made in
 * the browser, gets its configuration (private key inside, QR code, download), sees it under
 * My devices, renames it and deletes it through the confirmation; the API agrees at each step.
 */
import { expect, test } from "@playwright/test";
import { apiClient, configPanel, createLocation, message, signIn, suffix } from "./support";

type Device = { id: number; name: string; wireguard_pubkey: string };

test("add a device with a browser-made key, rename it, delete it", async ({ page }) => {
  const s = suffix();
  const username = `dev-${s}`;
  const api = await apiClient();
  const location = await createLocation(api, { name: `dev-loc-${s}` });
  await api.ok(api.post("/api/v1/user", { username, first_name: "Dev", last_name: "E2e", email: `${username}@example.com`, password: "Passw0rd!x" }), 201);
  const devicesOf = async () => {
    const body = await api.ok<Device[] | { devices: Device[] }>(api.get(`/api/v1/device/user/${username}`));
    return Array.isArray(body) ? body : body.devices;
  };

  await page.goto("/login");
  await signIn(page, username, "Passw0rd!x");
  await expect(page).toHaveURL(/\/me(?:[?#].*)?$/);
  await page.goto("/devices");
  await expect(page.getByTestId("user-devices")).toBeVisible();
  await page.getByTestId("add-device-link").click();
  await expect(page.getByTestId("add-device-form")).toBeVisible();

  const name = `laptop-${s}`;
  await page.getByTestId("device-name").fill(name);
  await page.getByTestId("key-method-generate").check();
  await page.getByTestId("add-device-submit").click();

  const panel = await configPanel(page, location.name);
  const config = panel.getByTestId("device-config");
  await expect(config).toContainText("[Interface]");
  await expect(config).toContainText(/PrivateKey = [A-Za-z0-9+/]{43}=/);
  await expect(config).toContainText(`PublicKey = ${location.pubkey}`);
  await expect(panel.getByTestId("config-qr")).toBeVisible();
  const download = page.waitForEvent("download");
  await panel.getByTestId("code-download").click();
  expect((await download).suggestedFilename()).toMatch(/\.conf$/);

  // The server has the public key that matches the browser's private key (it never saw the latter).
  const [created] = await devicesOf();
  expect(created.name).toBe(name);
  expect(created.wireguard_pubkey).toMatch(/^[A-Za-z0-9+/]{43}=$/);
  await expect(config).not.toContainText(`PrivateKey = ${created.wireguard_pubkey}`);

  // My devices lists it; rename through the edit dialog.
  await page.goto("/devices");
  const item = page.locator(`[data-testid="user-device"][data-device="${name}"]`);
  await expect(item).toBeVisible();
  await expect(item.getByTestId("device-location").filter({ hasText: location.name })).toBeVisible();
  await item.getByTestId("device-actions").click();
  await page.getByRole("menuitem", { name: message("en", "devices.list.edit") }).click();
  const renamed = `${name}-renamed`;
  await page.getByTestId("edit-device-name").fill(renamed);
  await page.getByTestId("edit-device-save").click();
  await expect(page.getByTestId("edit-device-form")).toHaveCount(0);
  const renamedItem = page.locator(`[data-testid="user-device"][data-device="${renamed}"]`);
  await expect(renamedItem).toBeVisible();
  await expect(item).toHaveCount(0);
  expect((await devicesOf()).map((d) => d.name)).toEqual([renamed]);

  // Delete with confirmation.
  await renamedItem.getByTestId("device-actions").click();
  await page.getByTestId("device-delete").click();
  const confirm = page.getByRole("alertdialog");
  await confirm.getByRole("button", { name: message("en", "devices.list.deleteConfirm") }).click();
  await expect(renamedItem).toHaveCount(0);
  expect(await devicesOf()).toEqual([]);
  expect((await api.get(`/api/v1/device/${created.id}`)).status()).toBe(404);
  await api.dispose();
});
