/**
 * Users end to end: an admin adds a user in the dialog; the user signs in (own browser context),
 * edits their phone on My Profile and is refused the users list (Forbidden screen and API 403);
 * the admin disables the account in the list and the user's next call and navigation land on
 * the login page; the activity log shows the "user_added" event.
 */
import { expect, test, type Page } from "@playwright/test";
import { adminPassword, apiClient, message, pageApiStatus, signIn, signInAdmin, suffix } from "./support";

const stamp = Date.now().toString(36);
const user = {
  username: `e2e-${stamp}`,
  first: "Erin",
  last: `Tester${stamp}`,
  email: `e2e-${stamp}@example.com`,
  password: "Str0ng!Passw0rd",
};

async function findUserRow(page: Page, username: string) {
  await page.getByTestId("users-search").fill(username);
  await expect(page).toHaveURL(new RegExp(`[?&]q=${username}`));
  const row = page.locator(`[data-testid="user-row"][data-username="${username}"]`);
  await expect(row).toBeVisible();
  return row;
}

test("admin adds a user; the user edits their profile, is refused admin pages, and is shut out when disabled", async ({ page, browser }) => {
  // Admin: add the user through the dialog.
  await signIn(page, "admin", adminPassword());
  await expect(page.getByTestId("app-shell")).toBeVisible();
  await page.goto("/users");
  await expect(page.getByRole("heading", { name: message("en", "users.title"), exact: true })).toBeVisible();
  await page.getByTestId("add-user").click();
  const dialog = page.getByTestId("add-user-dialog");
  await expect(dialog).toBeVisible();

  // Validation on blur with the shared schema.
  await dialog.getByTestId("add-user-email").fill("not-an-email");
  await dialog.getByTestId("add-user-phone").focus();
  await expect(dialog.getByText(message("en", "validation.invalidEmail"))).toBeVisible();

  await dialog.getByTestId("add-user-username").fill(user.username);
  await expect(dialog.getByTestId("username-available")).toBeVisible();
  // The admin's login is taken: the live check says so.
  await dialog.getByTestId("add-user-username").fill("admin");
  await expect(dialog.getByText(message("en", "users.errors.usernameTaken"))).toBeVisible();
  await dialog.getByTestId("add-user-username").fill(user.username);
  await expect(dialog.getByTestId("username-available")).toBeVisible();

  await dialog.getByTestId("add-user-first-name").fill(user.first);
  await dialog.getByTestId("add-user-last-name").fill(user.last);
  await dialog.getByTestId("add-user-email").fill(user.email);
  await expect(dialog.getByTestId("enrollment-note")).toBeVisible();
  await dialog.getByTestId("add-user-password").fill(user.password);
  await expect(dialog.getByTestId("enrollment-note")).toHaveCount(0);
  await dialog.getByTestId("add-user-submit").click();
  await expect(dialog).toHaveCount(0);
  await expect(page.locator('[data-testid="toast"][data-type="success"]').filter({ hasText: user.first })).toBeVisible();

  const row = await findUserRow(page, user.username);
  await expect(row.getByTestId("user-status")).toHaveText(message("en", "users.active"));

  // The user, in a browser of their own.
  const context = await browser.newContext();
  try {
    const userPage = await context.newPage();
    await signIn(userPage, user.username, user.password);
    await expect(userPage).toHaveURL(/\/me(?:[?#].*)?$/);
    await expect(userPage.getByTestId("profile-name")).toHaveText(`${user.first} ${user.last}`);

    // Edit their own phone number.
    await userPage.getByTestId("profile-edit").click();
    await expect(userPage.getByTestId("profile-username")).toHaveAttribute("readonly", "");
    await userPage.getByTestId("profile-phone").fill("+48 600 100 200");
    await userPage.getByTestId("profile-save").click();
    await expect(userPage.locator('[data-testid="toast"][data-type="success"]').filter({ hasText: message("en", "profile.saved") })).toBeVisible();
    await expect(userPage.getByTestId("profile-phone-value")).toHaveText("+48 600 100 200");
    await userPage.reload();
    await expect(userPage.getByTestId("profile-phone-value")).toHaveText("+48 600 100 200");

    // Not an admin: the users list is refused on the page and in the API.
    await expect(userPage.getByTestId("nav-item-users")).toHaveCount(0);
    await userPage.goto("/users");
    await expect(userPage.getByTestId("forbidden")).toBeVisible();
    await expect(userPage.getByTestId("users-table")).toHaveCount(0);
    expect(await pageApiStatus(userPage, "/api/v1/user")).toBe(403);
    expect(await pageApiStatus(userPage, "/api/v1/user/admin")).toBe(403);
    // Nor may they open someone else's profile.
    await userPage.goto("/users/admin");
    await expect(userPage.getByTestId("forbidden")).toBeVisible();

    // Admin disables the account from the list.
    await page.getByTestId(`user-actions-${user.username}`).click();
    await page.getByTestId("action-disable").click();
    const confirm = page.getByRole("alertdialog");
    await expect(confirm).toContainText(user.username);
    await confirm.getByRole("button", { name: message("en", "users.actions.disable"), exact: true }).click();
    await expect(confirm).toHaveCount(0);
    await expect(row.getByTestId("user-status")).toHaveText(message("en", "users.disabled"));

    // The user's session is gone: the next API call is refused and the next page is the login.
    expect(await pageApiStatus(userPage, "/api/v1/me")).toBe(401);
    await userPage.goto("/me");
    await expect(userPage).toHaveURL(/\/login(?:[?#].*)?$/);
    await expect(userPage.getByTestId("login-username")).toBeVisible();
  } finally {
    await context.close();
  }

  // The activity log shows who added the user.
  await page.goto("/activity");
  await expect(page.getByRole("heading", { name: message("en", "activity.title"), exact: true })).toBeVisible();
  await page.getByTestId("activity-search").fill(user.username);
  const added = page.locator('[data-testid="activity-row"][data-event="user_added"]');
  await expect(added.filter({ hasText: `Added user ${user.username}` })).toBeVisible();
  await expect(added.first().getByTestId("activity-event")).toHaveText(message("en", "activity.events.user_added"));
});

test("a group gets its members from the searchable multi-select, by mouse and keyboard", async ({ page }) => {
  const api = await apiClient();
  const s = suffix();
  for (const n of ["ann", "bea", "cid"]) {
    await api.ok(api.post("/api/v1/user", { username: `ms-${n}-${s}`, first_name: n, last_name: "Pick", email: `ms-${n}-${s}@example.com`, password: "Passw0rd!x" }), 201);
  }
  await signInAdmin(page);
  await page.goto("/groups");
  await page.getByTestId("add-group").click();
  await page.getByTestId("group-name").fill(`pickers-${s}`);
  const members = page.getByTestId("group-members");
  await members.getByRole("button").last().click();
  const search = page.getByRole("combobox");
  // Mouse: search, click an option.
  await search.fill(`ms-ann-${s}`);
  await page.getByRole("option", { name: new RegExp(`ms-ann-${s}`) }).click();
  // Keyboard: search (the list is searched on the server: wait for it), arrow to the only
  // match, Enter toggles it on.
  await search.fill(`ms-bea-${s}`);
  await expect(page.getByRole("option").first()).toHaveText(new RegExp(`ms-bea-${s}`));
  await expect(page.getByRole("option")).toHaveCount(1);
  await search.press("ArrowDown");
  await search.press("Enter");
  // Enter at once, before the server answered, must not pick one of the previous results.
  await search.fill(`ms-cid-${s}`);
  await search.press("Enter");
  await expect(page.getByRole("option").first()).toHaveText(new RegExp(`ms-cid-${s}`));
  await expect(page.getByRole("option")).toHaveCount(1);
  await expect(members.getByTestId("multi-select-chip")).toHaveCount(2);
  await search.press("Enter");
  await expect(page.getByRole("option", { name: new RegExp(`ms-cid-${s}`) })).toHaveAttribute("aria-selected", "true");
  // Backspace in an empty search removes the last chip (cid).
  await search.fill("");
  await search.press("Backspace");
  await expect(members.getByTestId("multi-select-chip")).toHaveCount(2);
  await search.press("Escape");
  await page.getByTestId("group-submit").click();
  await expect(page.getByTestId("group-dialog")).toHaveCount(0);

  const group = await api.ok<{ name: string; members: string[] }>(api.get(`/api/v1/group/pickers-${s}`), 200);
  expect([...group.members].sort()).toEqual([`ms-ann-${s}`, `ms-bea-${s}`]);
});
