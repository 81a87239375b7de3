/**
 * My Profile end to end: a user edits their first name (shown in the header and kept after a
 * reload), changes their own password (a wrong current password is refused on its field), and
 * then the old password no longer signs in while the new one does.
 */
import { expect, test } from "@playwright/test";
import { apiClient, signIn, signOut, suffix } from "./support";

test("edit the first name and change the own password", async ({ page }) => {
  const username = `prof-${suffix()}`;
  const oldPassword = "Passw0rd!x";
  const newPassword = "N3w-Passw0rd!z";
  const api = await apiClient();
  await api.ok(api.post("/api/v1/user", { username, first_name: "Pat", last_name: "Profile", email: `${username}@example.com`, password: oldPassword }), 201);

  await page.goto("/login");
  await signIn(page, username, oldPassword);
  await expect(page).toHaveURL(/\/me(?:[?#].*)?$/);
  await expect(page.getByTestId("profile-name")).toHaveText("Pat Profile");

  // Edit the first name.
  await page.getByTestId("profile-edit").click();
  await page.getByTestId("profile-first-name").fill("Patricia");
  await page.getByTestId("profile-save").click();
  await expect(page.getByTestId("profile-name")).toHaveText("Patricia Profile");
  await page.reload();
  await expect(page.getByTestId("profile-name")).toHaveText("Patricia Profile");
  expect((await api.ok<{ user: { first_name: string } }>(api.get(`/api/v1/user/${username}`))).user.first_name).toBe("Patricia");

  // Change the password: a wrong current one is refused on its field.
  await page.getByTestId("profile-change-password").click();
  const dialog = page.getByTestId("change-password-dialog");
  await expect(dialog).toBeVisible();
  await dialog.getByTestId("password-old").fill("Wrong-passw0rd!");
  await dialog.getByTestId("password-new").fill(newPassword);
  await dialog.getByTestId("password-confirm").fill(newPassword);
  await dialog.getByTestId("password-submit").click();
  await expect(dialog.getByTestId("password-old")).toHaveAttribute("aria-invalid", "true");
  await expect(dialog).toBeVisible();

  await dialog.getByTestId("password-old").fill(oldPassword);
  await dialog.getByTestId("password-submit").click();
  await expect(dialog).toHaveCount(0);
  await expect(page.locator('[data-testid="toast"][data-type="success"]').first()).toBeVisible();

  // The old password no longer works; the new one does.
  await signOut(page);
  await expect(page).toHaveURL(/\/login/);
  await signIn(page, username, oldPassword);
  await expect(page.getByTestId("login-error")).toBeVisible();
  await expect(page).toHaveURL(/\/login/);
  await signIn(page, username, newPassword);
  await expect(page).toHaveURL(/\/me(?:[?#].*)?$/);
  await expect(page.getByTestId("profile-name")).toHaveText("Patricia Profile");
  await api.dispose();
});
