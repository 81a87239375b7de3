/**
 * Activity log end to end: the admin adds a user (API) and that user signs in (API); on the
 * activity log the admin filters by that user and then by event, and sees exactly those rows;
 * the filters live in the address, survive a reload, and "Reset filters" clears them.
 */
import { expect, test, type Page } from "@playwright/test";
import { ApiClient, apiClient, message, signInAdmin, suffix } from "./support";

async function pick(page: Page, testId: string, text: string) {
  await page.getByTestId(testId).locator("[aria-haspopup]").first().click();
  await page.locator('[role="combobox"][aria-autocomplete="list"]').fill(text);
  await page.getByRole("option").filter({ hasText: text }).first().click();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId(testId).getByTestId("multi-select-chip")).toHaveCount(1);
}

test("filter the activity log by user and by event", async ({ page }) => {
  const username = `act-${suffix()}`;
  const api = await apiClient();
  await api.ok(api.post("/api/v1/user", { username, first_name: "Act", last_name: "E2e", email: `${username}@example.com`, password: "Passw0rd!x" }), 201);
  const asUser = await ApiClient.as(username, "Passw0rd!x");
  await asUser.dispose();
  await api.dispose();

  await signInAdmin(page);
  await page.goto("/activity");
  await expect(page.getByRole("heading", { name: message("en", "activity.title"), exact: true })).toBeVisible();
  await expect(page.getByTestId("activity-row").first()).toBeVisible();

  // By user: only that user's rows (their sign-in), and the address keeps the filter.
  await pick(page, "activity-filter-user", username);
  await expect(page).toHaveURL(new RegExp(`[?&]user=${username}`));
  const rows = page.getByTestId("activity-row");
  await expect(page.locator('[data-testid="activity-row"][data-event="user_login"]').first()).toBeVisible();
  await expect(page.getByTestId("activity-table")).toContainText(username);
  const userRows = await rows.count();
  expect(userRows).toBeGreaterThan(0);
  for (let i = 0; i < userRows; i++) await expect(rows.nth(i)).toContainText(username);
  // The admin's own events are filtered out.
  await expect(page.locator('[data-testid="activity-row"][data-event="user_added"]')).toHaveCount(0);

  // Swap to an event filter: the user added by the admin shows up, and only user_added rows.
  await page.getByTestId("activity-reset").click();
  await expect(page).not.toHaveURL(/[?&]user=/);
  await pick(page, "activity-filter-event", message("en", "activity.events.user_added"));
  await expect(page).toHaveURL(/[?&]event=user_added/);
  await expect(page.locator('[data-testid="activity-row"][data-event="user_added"]').first()).toBeVisible();
  await expect(page.locator('[data-testid="activity-row"]:not([data-event="user_added"])')).toHaveCount(0);
  await expect(page.getByTestId("activity-table")).toContainText(username);

  // The filter survives a reload (it is in the address).
  await page.reload();
  await expect(page.getByTestId("activity-filter-event").getByTestId("multi-select-chip")).toHaveCount(1);
  await expect(page.locator('[data-testid="activity-row"]:not([data-event="user_added"])')).toHaveCount(0);
  await expect(page.locator('[data-testid="activity-row"][data-event="user_added"]').first()).toBeVisible();

  // Searching for a name nobody has: the empty state, not stale rows.
  await page.getByTestId("activity-search").fill(`nobody-${suffix()}`);
  await expect(page.getByTestId("activity-row")).toHaveCount(0);
  await page.getByTestId("activity-reset").click();
  await expect(page.getByTestId("activity-row").first()).toBeVisible();
});
