/**
 * Bulk actions in the users list against the built server: rows picked on two pages stay
 * selected across paging and a search change, one confirmation (naming them) disables exactly
 * those users; then "select all N matching" acts on the search on the server side and deletes
 * every matching user, across pages the browser never loaded. Network devices: two of three
 * picked rows move to another location with one confirmation (the location chosen in it).
 */
import { generateKeyPairSync } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { apiClient, createLocation, message, signInAdmin, suffix } from "./support";

/** A WireGuard public key (x25519, base64). */
function newPublicKey(): string {
  const spki = generateKeyPairSync("x25519").publicKey.export({ format: "der", type: "spki" });
  return spki.subarray(spki.length - 32).toString("base64");
}

const row = (page: Page, username: string) => page.locator(`[data-testid="user-row"][data-username="${username}"]`);

test("users: selection across pages and searches, one confirmed action; select all matching", async ({ page }) => {
  test.setTimeout(180_000);
  const s = suffix();
  const prefix = `bk${s}`;
  const api = await apiClient();
  const names = Array.from({ length: 55 }, (_, i) => `${prefix}-${String(i).padStart(2, "0")}`);
  for (const username of names) {
    await api.ok(api.post("/api/v1/user", { username, first_name: "Bulk", last_name: username, email: `${username}@example.com`, password: "Str0ng!Passw0rd" }), 201);
  }

  await signInAdmin(page);
  await page.goto(`/users?q=${prefix}`);
  await expect(page.getByTestId("user-row")).toHaveCount(50);

  // Two rows on page 1.
  for (const n of [names[0], names[1]]) await row(page, n).getByTestId("select-row").click();
  await expect(page.getByTestId("bulk-count")).toHaveText("2 selected");

  // Page 2: one more; the bar keeps counting.
  await page.getByTestId("pagination").getByRole("button", { name: message("en", "users.pager.next") }).click();
  await expect(page.getByTestId("user-row")).toHaveCount(5);
  await row(page, names[54]).getByTestId("select-row").click();
  await expect(page.getByTestId("bulk-count")).toHaveText("3 selected");

  // Another search and back: the selection stays, page 1's rows are still ticked.
  await page.getByTestId("users-search").fill(names[10]);
  await expect(page.getByTestId("user-row")).toHaveCount(1);
  await expect(page.getByTestId("bulk-count")).toHaveText("3 selected");
  await page.getByTestId("users-search").fill(prefix);
  await expect(page.getByTestId("user-row")).toHaveCount(50);
  await expect(row(page, names[0])).toHaveAttribute("data-selected", "true");
  await expect(row(page, names[2])).toHaveAttribute("data-selected", "false");

  // One confirmation naming them, then exactly those three are disabled.
  await page.getByTestId("bulk-disable").click();
  const dialog = page.getByRole("alertdialog");
  await expect(dialog.getByTestId("bulk-names")).toHaveText(`${names[0]}, ${names[1]}, ${names[54]}`);
  await dialog.getByTestId("confirm-action").click();
  await expect(page.locator('[data-testid="toast"][data-type="success"]').filter({ hasText: "3 users disabled" })).toBeVisible();
  await expect(page.getByTestId("bulk-bar")).toHaveCount(0);
  const listed = await api.ok<{ username: string; is_active: boolean }[]>(api.get(`/api/v1/user?search=${prefix}`));
  expect(listed.filter((u) => !u.is_active).map((u) => u.username).sort()).toEqual([names[0], names[1], names[54]]);
  await expect(row(page, names[0]).getByTestId("user-status")).toHaveText(message("en", "users.disabled"));

  // Select this page, then all 55 matching: the server resolves the search, page 2 included.
  await page.getByTestId("select-page").click();
  await expect(page.getByTestId("bulk-count")).toHaveText("50 selected");
  await page.getByTestId("bulk-select-all").click();
  await expect(page.getByTestId("bulk-count")).toHaveText("All 55 matching objects selected");
  await page.getByTestId("bulk-delete").click();
  await expect(page.getByRole("alertdialog")).toContainText("Delete 55 users?");
  await page.getByRole("alertdialog").getByTestId("confirm-action").click();
  await expect(page.locator('[data-testid="toast"][data-type="success"]').filter({ hasText: "55 users deleted" })).toBeVisible();
  expect(await api.ok<unknown[]>(api.get(`/api/v1/user?search=${prefix}`))).toEqual([]);
  await expect(page.getByTestId("user-row")).toHaveCount(0);
});

test("network devices: move the selected devices to another location", async ({ page }) => {
  const s = suffix();
  const api = await apiClient();
  const from = await createLocation(api, { name: `bk-from-${s}`, address: "10.77.0.1/24" });
  const to = await createLocation(api, { name: `bk-to-${s}`, address: "10.78.0.1/24" });
  const names = [0, 1, 2].map((i) => `bk-nd-${s}-${i}`);
  for (const [i, name] of names.entries()) {
    await api.ok(api.post("/api/v1/device/network", { name, description: null, location_id: from.id, assigned_ips: [`10.77.0.${10 + i}`], wireguard_pubkey: newPublicKey() }), 201);
  }
  await signInAdmin(page);
  await page.goto("/network-devices");
  await page.getByTestId("nd-search").fill(`bk-nd-${s}`);
  const ndRow = (n: string) => page.locator(`[data-testid="nd-row"][data-device="${n}"]`);
  await expect(page.getByTestId("nd-row")).toHaveCount(3);
  await ndRow(names[0]).getByTestId("select-row").click();
  await ndRow(names[2]).getByTestId("select-row").click();
  await expect(page.getByTestId("bulk-count")).toHaveText("2 selected");
  await page.getByTestId("bulk-move").click();
  const dialog = page.getByRole("alertdialog");
  await expect(dialog.getByTestId("confirm-action")).toBeDisabled();
  await dialog.getByTestId("bulk-location").click();
  await page.getByRole("option", { name: to.name }).click();
  await dialog.getByTestId("confirm-action").click();
  await expect(page.locator('[data-testid="toast"][data-type="success"]').filter({ hasText: "2 devices moved" })).toBeVisible();
  const all = await api.ok<{ name: string; location: { id: number } | null; assigned_ips: string[] }[]>(api.get("/api/v1/device/network"));
  const mine = Object.fromEntries(all.filter((d) => names.includes(d.name)).map((d) => [d.name, d]));
  expect(mine[names[0]].location?.id).toBe(to.id);
  expect(mine[names[2]].location?.id).toBe(to.id);
  expect(mine[names[1]].location?.id).toBe(from.id);
  expect(mine[names[0]].assigned_ips[0]).toMatch(/^10\.78\.0\./);
  await expect(ndRow(names[0])).toContainText(to.name);
});
