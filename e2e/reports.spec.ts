/**
 * Reports → Stale access against the built server: the page lists the first admin (no MFA) with
 * the server's count, switches the window and shows the server's counts for it, downloads the
 * same report as CSV, and links a user to their page. Non-admins get no entry and a refusal.
 */
import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { apiClient, message, signIn, signInAdmin, suffix } from "./support";

test("stale access: sections, window, user link and CSV download; refused to non-admins", async ({ page }) => {
  const s = suffix();
  const api = await apiClient();
  await signInAdmin(page);
  await page.goto("/reports/stale-access");
  await expect(page.getByRole("heading", { name: message("en", "reports.staleAccess.title"), level: 1 })).toBeVisible();
  // The first admin has no second factor: listed, with a link to the profile.
  const admins = page.getByTestId("stale-admins");
  const adminRow = admins.getByTestId("stale-admins-row").filter({ hasText: "admin@example.com" });
  await expect(adminRow).toBeVisible();
  const count = Number(await admins.getByTestId("stale-admins-count").textContent());
  const report = await api.ok<{ admins_without_mfa: unknown[] }>(api.get("/api/v1/report/stale_access?days=90"));
  expect(count).toBe(report.admins_without_mfa.length);

  // Another window: the page asks again and shows the server's counts for it.
  await page.getByTestId("stale-days").click();
  await page.getByRole("option", { name: message("en", "reports.staleAccess.days").replace("{days}", "30") }).click();
  await expect(page.getByTestId("stale-days")).toContainText("30");
  const month = await api.ok<Record<"users" | "devices" | "api_tokens" | "groups_without_members", unknown[]>>(api.get("/api/v1/report/stale_access?days=30"));
  await expect(page.getByTestId("stale-users-count")).toHaveText(String(month.users.length));
  await expect(page.getByTestId("stale-devices-count")).toHaveText(String(month.devices.length));
  await expect(page.getByTestId("stale-tokens-count")).toHaveText(String(month.api_tokens.length));
  await expect(page.getByTestId("stale-groups-count")).toHaveText(String(month.groups_without_members.length));

  // CSV of the chosen window.
  const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("stale-csv").click()]);
  expect(download.suggestedFilename()).toMatch(/^stale-access-30d-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = readFileSync((await download.path())!, "utf8");
  const lines = csv.trimEnd().split("\r\n");
  expect(lines[0]).toBe("kind,id,name,owner_or_email,created_at,last_activity,details");
  expect(lines.some((l) => l.startsWith("admin_without_mfa,") && l.includes("admin@example.com"))).toBe(true);

  // The user link opens the user's page.
  await adminRow.getByRole("link", { name: "admin" }).click();
  await expect(page).toHaveURL(/\/users\/admin$/);

  // A non-admin has no navigation entry and the API refuses.
  const username = `stale-user-${s}`;
  await api.ok(api.post("/api/v1/user", { username, first_name: "Stale", last_name: "User", email: `${username}@example.com`, password: "Str0ng!Passw0rd" }), 201);
  await page.context().clearCookies();
  await signIn(page, username, "Str0ng!Passw0rd");
  await expect(page.getByRole("link", { name: message("en", "nav.reports") })).toHaveCount(0);
  const status = await page.evaluate(async () => (await fetch("/api/v1/report/stale_access")).status);
  expect(status).toBe(403);
});
