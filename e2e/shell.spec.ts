/**
 * The console shell on a fresh start: the first-start admin (generated password) signs in,
 * lands on /overview inside the shell, signs out; failed sign-in feedback; and the login page
 * in the negotiated language (Accept-Language) and after switching the language.
 */
import { expect, test } from "@playwright/test";
import { adminPassword, message, pageApiStatus, signIn, signOut } from "./support";

test("admin signs in with the generated password, sees the shell, and signs out", async ({ page }) => {
  await page.goto("/login");
  await signIn(page, "admin", adminPassword());

  await expect(page).toHaveURL(/\/overview(?:[?#].*)?$/);
  await expect(page.getByTestId("app-shell")).toBeVisible();
  await expect(page.getByTestId("nav")).toBeVisible();
  await expect(page.getByTestId("nav-item-overview")).toBeVisible();
  await expect(page.getByTestId("user-menu")).toBeVisible();
  expect(await pageApiStatus(page, "/api/v1/me")).toBe(200);

  await signOut(page);
  await expect(page).toHaveURL(/\/login(?:[?#].*)?$/);
  await expect(page.getByTestId("login-username")).toBeVisible();

  // The session is gone on the server side, not only in the UI.
  expect(await pageApiStatus(page, "/api/v1/me")).toBe(401);
  const cookies = await page.context().cookies();
  expect(cookies.find((c) => c.name === "defguard_session")?.value ?? "").toBe("");

  // A signed-out visit to a signed-in page ends on the login page.
  await page.goto("/me");
  await expect(page).toHaveURL(/\/login(?:[?#].*)?$/);
  await expect(page.getByTestId("app-shell")).toHaveCount(0);
});

test("a wrong password shows the login error and keeps the user on /login", async ({ page }) => {
  await page.goto("/login");
  await expect(page.getByRole("heading", { name: message("en", "login.title"), exact: true })).toBeVisible();
  await signIn(page, "admin", `${adminPassword()}-wrong`);

  const error = page.getByTestId("login-error");
  await expect(error).toBeVisible();
  await expect(error).not.toHaveText(/^\s*$/);
  await expect(page).toHaveURL(/\/login(?:[?#].*)?$/);
  expect(await pageApiStatus(page, "/api/v1/me")).toBe(401);
});

test("the login page follows Accept-Language and the language switch", async ({ browser }) => {
  const context = await browser.newContext({
    locale: "ko-KR",
    extraHTTPHeaders: { "Accept-Language": "ko-KR,ko;q=0.9" },
  });
  try {
    const page = await context.newPage();
    await page.goto("/login");
    await expect(page.locator("html")).toHaveAttribute("lang", "ko");
    await expect(page.getByRole("heading", { name: message("ko", "login.title"), exact: true })).toBeVisible();

    await page.getByTestId("language-switch").selectOption("pl");
    await expect(page.getByRole("heading", { name: message("pl", "login.title"), exact: true })).toBeVisible();
    await expect(page.locator("html")).toHaveAttribute("lang", "pl");

    // The choice outlives a reload although the browser still asks for Korean.
    await page.reload();
    await expect(page.getByRole("heading", { name: message("pl", "login.title"), exact: true })).toBeVisible();
  } finally {
    await context.close();
  }
});
