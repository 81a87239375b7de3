/**
 * Licence end to end: Settings → Enterprise features shows the test licence the global setup
 * entered, refuses a tampered key on its field; without a licence and over the free tier an
 * enterprise screen (Access Control) opens the upgrade dialog naming what is exceeded, and the
 * enterprise settings are shown read-only as not in force. The
 * licence is put back afterwards (the server is shared by every spec).
 */
import { expect, test } from "@playwright/test";
import { apiClient, signInAdmin, suffix } from "./support";

test("the licence card shows the licence and refuses a tampered key on its field", async ({ page }) => {
  await signInAdmin(page);
  await page.goto("/settings?tab=enterprise");
  const card = page.getByTestId("licence-card");
  await expect(card.getByTestId("licence-state")).toHaveText("Active");
  await expect(card.getByTestId("licence-details")).toContainText("e2e");
  await card.getByTestId("licence-key").fill("DGL1.e30.AAAA");
  await card.getByTestId("licence-save").click();
  await expect(card.getByText(/signature is malformed/)).toBeVisible();
  await expect(card.getByTestId("licence-state")).toHaveText("Active");
});

test("over the free tier without a licence, Access Control opens the upgrade dialog", async ({ page }) => {
  const api = await apiClient();
  const before = await api.ok<{ license: string }>(api.get("/api/v1/settings"));
  try {
    // The shared server usually has more than 5 users already; make sure.
    const users = await api.ok<unknown[]>(api.get("/api/v1/user"));
    for (let i = users.length; i <= 5; i++) {
      const name = `lic${suffix()}`;
      await api.ok(api.post("/api/v1/user", { username: name, first_name: "L", last_name: "U", email: `${name}@example.com`, password: "Passw0rd!x" }), 201);
    }
    await api.ok(api.patch("/api/v1/settings", { license: null }));
    await signInAdmin(page);
    await page.goto("/acl");
    const dialog = page.getByRole("dialog", { name: "Upgrade needed" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByTestId("upgrade-exceeded")).toContainText("users");
    await dialog.getByTestId("upgrade-enter-licence").click();
    await expect(page).toHaveURL(/\/settings\?tab=enterprise/);
    await expect(page.getByTestId("licence-state")).toHaveText("No licence");
    // The enterprise settings are kept but not in force: shown read-only, with a notice and no save bar.
    await expect(page.getByTestId("enterprise-settings-not-in-force")).toBeVisible();
    await expect(page.getByTestId("setting-admin-device-management")).toBeDisabled();
    await expect(page.getByTestId("enterprise-settings-save")).toHaveCount(0);
  } finally {
    await api.ok(api.patch("/api/v1/settings", { license: before.license }));
    await api.dispose();
  }
});
