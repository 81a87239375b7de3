/**
 * VPN overview end to end: with a location and a user's device (API, never connected), the
 * overview shows the stat tiles at zero, the location in the location picker and the gateway
 * strip, and "Nobody connected" for the range; switching to the list view and another time
 * range updates the address and the empty state, and both survive a reload.
 */
import { generateKeyPairSync } from "node:crypto";
import { expect, test } from "@playwright/test";
import { apiClient, createLocation, message, signInAdmin, suffix } from "./support";

function wireguardPublicKey(): string {
  const { publicKey } = generateKeyPairSync("x25519");
  return publicKey.export({ type: "spki", format: "der" }).subarray(-32).toString("base64");
}

test("overview with a location and an idle device: controls and empty states", async ({ page }) => {
  const s = suffix();
  const api = await apiClient();
  const location = await createLocation(api, { name: `ov-loc-${s}` });
  const username = `ov-${s}`;
  await api.ok(api.post("/api/v1/user", { username, first_name: "Ov", last_name: "E2e", email: `${username}@example.com`, password: "Passw0rd!x" }), 201);
  await api.ok(api.post(`/api/v1/device/${username}`, { name: `ov-dev-${s}`, wireguard_pubkey: wireguardPublicKey() }), 201);
  await api.dispose();

  await signInAdmin(page);
  await page.goto("/overview");
  await expect(page.getByRole("heading", { name: message("en", "overview.title"), exact: true })).toBeVisible();
  await expect(page.getByTestId("overview-summary")).toBeVisible();
  await expect(page.getByTestId("overview-connected-users")).toHaveText("0");
  await expect(page.getByTestId("overview-connected-devices")).toHaveText("0");
  await expect(page.getByTestId("overview-gateways")).toContainText(location.name);

  const users = page.getByTestId("overview-users");
  await expect(users).toHaveAttribute("data-view", "grid");
  await expect(users).toContainText(message("en", "overview.users.emptyTitle"));
  await expect(users).toContainText("No device was active in the last hour.");

  // The location picker lists the location; choosing it puts it in the address.
  await page.getByTestId("overview-location").click();
  await page.getByRole("option", { name: location.name, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`[?&]location=${location.id}(?:&|$)`));
  await expect(page.getByTestId("overview-location")).toContainText(location.name);

  // List view.
  await page.getByTestId("overview-view-list").click();
  await expect(page).toHaveURL(/[?&]view=list/);
  await expect(users).toHaveAttribute("data-view", "list");
  await expect(page.getByTestId("overview-view-list")).toHaveAttribute("aria-pressed", "true");
  await expect(users).toContainText(message("en", "overview.users.emptyTitle"));

  // Another time range: the empty state names it.
  await page.getByTestId("overview-hours").click();
  await page.getByRole("option", { name: "Last 24 hours", exact: true }).click();
  await expect(page).toHaveURL(/[?&]hours=24/);
  await expect(users).toContainText("No device was active in the last 24 hours.");

  await page.reload();
  await expect(page.getByTestId("overview-users")).toHaveAttribute("data-view", "list");
  await expect(page.getByTestId("overview-hours")).toContainText("Last 24 hours");
  await expect(page.getByTestId("overview-location")).toContainText(location.name);

  // Back to the grid.
  await page.getByTestId("overview-view-grid").click();
  await expect(page).not.toHaveURL(/[?&]view=/);
  await expect(page.getByTestId("overview-users")).toHaveAttribute("data-view", "grid");
});
