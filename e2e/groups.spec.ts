/**
 * Groups end to end: the admin creates a group with two members picked in the dialog's server
 * search, sees the member count in the list, renames the group (members stay), deletes it
 * through the confirmation and the API no longer knows it.
 */
import { expect, test, type Page } from "@playwright/test";
import { apiClient, message, signInAdmin, suffix } from "./support";

async function pickMember(page: Page, username: string) {
  const dialog = page.getByTestId("group-dialog");
  await dialog.getByTestId("group-members").locator("button[aria-haspopup], [aria-haspopup]").first().click();
  const search = page.locator('[role="combobox"][aria-autocomplete="list"]');
  await search.fill(username);
  await page.getByRole("option").filter({ hasText: username }).first().click();
  await page.keyboard.press("Escape");
  await expect(dialog.getByTestId("multi-select-chip").filter({ hasText: username })).toBeVisible();
}

test("create a group with members, rename it, delete it", async ({ page }) => {
  const s = suffix();
  const api = await apiClient();
  const members = [`grp-a-${s}`, `grp-b-${s}`];
  for (const u of members) {
    await api.ok(api.post("/api/v1/user", { username: u, first_name: "Gm", last_name: "E2e", email: `${u}@example.com`, password: "Passw0rd!x" }), 201);
  }
  const name = `e2e-group-${s}`;
  const renamed = `${name}-renamed`;

  await signInAdmin(page);
  await page.goto("/groups");
  await page.getByTestId("add-group").click();
  const dialog = page.getByTestId("group-dialog");
  await expect(dialog).toBeVisible();

  // An empty name is refused on the field.
  await dialog.getByTestId("group-submit").click();
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId("group-name")).toHaveAttribute("aria-invalid", "true");

  await dialog.getByTestId("group-name").fill(name);
  for (const u of members) await pickMember(page, u);
  await dialog.getByTestId("group-submit").click();
  await expect(dialog).toHaveCount(0);

  const row = page.locator(`[data-testid="group-row"][data-group="${name}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByTestId("group-members-count")).toHaveText("2");
  await expect(row).toContainText(members[0]);
  const created = await api.ok<{ members?: string[] }>(api.get(`/api/v1/group/${name}`));
  expect([...(created.members ?? [])].sort()).toEqual([...members].sort());

  // Rename through the row's actions menu: members stay.
  await page.getByTestId(`group-actions-${name}`).click();
  await page.getByTestId("group-action-edit").click();
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId("group-name")).toHaveValue(name);
  await dialog.getByTestId("group-name").fill(renamed);
  await dialog.getByTestId("group-submit").click();
  await expect(dialog).toHaveCount(0);
  const renamedRow = page.locator(`[data-testid="group-row"][data-group="${renamed}"]`);
  await expect(renamedRow).toBeVisible();
  await expect(renamedRow.getByTestId("group-members-count")).toHaveText("2");
  await expect(page.locator(`[data-testid="group-row"][data-group="${name}"]`)).toHaveCount(0);
  expect((await api.get(`/api/v1/group/${name}`)).status()).toBe(404);

  // Delete with confirmation.
  await page.getByTestId(`group-actions-${renamed}`).click();
  await page.getByTestId("group-action-delete").click();
  const confirm = page.getByRole("alertdialog");
  await expect(confirm).toBeVisible();
  await confirm.getByRole("button", { name: message("en", "groups.actions.delete") }).click();
  // The rename's "saved" toast may still be up, so look for the delete's own wording.
  const deletedText = message("en", "groups.deleted").replace("{name}", renamed);
  await expect(page.locator('[data-testid="toast"][data-type="success"]').filter({ hasText: deletedText })).toBeVisible();
  await expect(renamedRow).toHaveCount(0);
  expect((await api.get(`/api/v1/group/${renamed}`)).status()).toBe(404);
  const all = await api.ok<{ name: string }[] | { groups: string[] }>(api.get("/api/v1/group"));
  expect(JSON.stringify(all)).not.toContain(renamed);
  await api.dispose();
});
