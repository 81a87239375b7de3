/**
 * Settings end to end: the instance name saved on the Global tab becomes the page title; a bad
 * SMTP port is refused on the port field and nothing is saved, a good one is saved and shown
 * after a reload; the gateway-notification switches and threshold persist across a reload.
 */
import { expect, test } from "@playwright/test";
import { apiClient, signIn, signInAdmin, suffix } from "./support";

type Settings = Record<string, unknown>;

test("global: the instance name becomes the page title", async ({ page }) => {
  const api = await apiClient();
  const before = await api.ok<Settings>(api.get("/api/v1/settings"));
  const name = `E2E Net ${suffix()}`;
  try {
    await signInAdmin(page);
    await page.goto("/settings?tab=global");
    const input = page.getByTestId("setting-instance-name");
    await expect(input).toHaveValue(String(before.instance_name ?? ""));
    await input.fill(name);
    await page.getByTestId("global-save").click();
    await expect(page.locator('[data-testid="toast"][data-type="success"]')).toBeVisible();
    await expect(page).toHaveTitle(new RegExp(name));
    await page.reload();
    await expect(page.getByTestId("setting-instance-name")).toHaveValue(name);
    await expect(page).toHaveTitle(new RegExp(name));
    expect((await api.ok<Settings>(api.get("/api/v1/settings"))).instance_name).toBe(name);
  } finally {
    await api.ok(api.patch("/api/v1/settings", { instance_name: before.instance_name }));
    await api.dispose();
  }
});

test("SMTP: a bad port is refused on its field; good values are saved and shown after a reload", async ({ page }) => {
  const api = await apiClient();
  const before = await api.ok<Settings>(api.get("/api/v1/settings"));
  await signInAdmin(page);
  await page.goto("/settings");
  await expect(page.getByTestId("smtp-form")).toBeVisible();

  await page.getByTestId("smtp-server").fill("smtp.e2e.example");
  await page.getByTestId("smtp-sender").fill("vpn@e2e.example");
  const port = page.getByTestId("smtp-port");
  await port.fill("70000");
  await page.getByTestId("smtp-save").click();
  await expect(port).toHaveAttribute("aria-invalid", "true");
  await expect(port).toHaveAccessibleDescription(/\S/);
  await expect(page.locator('[data-testid="toast"][data-type="success"]')).toHaveCount(0);
  expect((await api.ok<Settings>(api.get("/api/v1/settings"))).smtp_server ?? null).toBe(before.smtp_server ?? null);

  await port.fill("2525");
  await expect(port).not.toHaveAttribute("aria-invalid", "true");
  await page.getByTestId("smtp-save").click();
  await expect(page.locator('[data-testid="toast"][data-type="success"]')).toBeVisible();
  const saved = await api.ok<Settings>(api.get("/api/v1/settings"));
  expect(saved.smtp_server).toBe("smtp.e2e.example");
  expect(saved.smtp_port).toBe(2525);

  await page.reload();
  await expect(page.getByTestId("smtp-server")).toHaveValue("smtp.e2e.example");
  await expect(page.getByTestId("smtp-port")).toHaveValue("2525");
  await expect(page.getByTestId("smtp-sender")).toHaveValue("vpn@e2e.example");
  await api.dispose();
});

test("gateway notifications: switches and threshold persist", async ({ page }) => {
  const api = await apiClient();
  await signInAdmin(page);
  await page.goto("/settings");
  await page.getByTestId("settings-tab-gateway-notifications").click();
  await expect(page).toHaveURL(/[?&]tab=gateway-notifications/);
  const form = page.getByTestId("gateway-notifications-form");
  await expect(form).toBeVisible();

  const disconnect = page.getByTestId("setting-gateway-disconnect");
  const reconnect = page.getByTestId("setting-gateway-reconnect");
  const threshold = page.getByTestId("setting-gateway-threshold");
  const was = (await disconnect.getAttribute("aria-checked")) === "true";
  if (was) {
    // Start from "off" so the dependent controls' state is known.
    await disconnect.click();
    await page.getByTestId("gateway-notifications-save").click();
    await expect(page.locator('[data-testid="toast"][data-type="success"]').first()).toBeVisible();
  }
  await expect(disconnect).toHaveAttribute("aria-checked", "false");
  await expect(reconnect).toBeDisabled();

  await disconnect.click();
  await expect(reconnect).toBeEnabled();
  await threshold.fill("17");
  if ((await reconnect.getAttribute("aria-checked")) !== "true") await reconnect.click();
  await expect(reconnect).toHaveAttribute("aria-checked", "true");
  await page.getByTestId("gateway-notifications-save").click();
  await expect(page.getByTestId("gateway-notifications-save")).toBeDisabled();

  const saved = await api.ok<Settings>(api.get("/api/v1/settings"));
  expect(saved.gateway_disconnect_notifications_enabled).toBe(true);
  expect(saved.gateway_disconnect_notifications_inactivity_threshold).toBe(17);
  expect(saved.gateway_disconnect_notifications_reconnect_notification_enabled).toBe(true);

  await page.reload();
  await expect(page.getByTestId("setting-gateway-disconnect")).toHaveAttribute("aria-checked", "true");
  await expect(page.getByTestId("setting-gateway-threshold")).toHaveValue("17");
  await expect(page.getByTestId("setting-gateway-reconnect")).toHaveAttribute("aria-checked", "true");
  await api.dispose();
});

test("enterprise: only admins manage devices, shown to a user and enforced by the API", async ({ page, browser }) => {
  const api = await apiClient();
  const username = `ent-${suffix()}`;
  const password = "Passw0rd!x";
  await api.ok(api.post("/api/v1/user", { username, first_name: "Eve", last_name: "Enterprise", email: `${username}@example.com`, password }), 201);
  try {
    await signInAdmin(page);
    await page.goto("/settings?tab=enterprise");
    await page.getByTestId("setting-admin-device-management").click();
    await page.getByTestId("setting-traffic-force_all_traffic").check();
    await page.getByTestId("enterprise-settings-save").click();
    await expect(page.locator('[data-testid="toast"][data-type="success"]')).toBeVisible();
    await page.reload();
    await expect(page.getByTestId("setting-admin-device-management")).toHaveAttribute("aria-checked", "true");
    await expect(page.getByTestId("setting-traffic-force_all_traffic")).toBeChecked();
    expect(await api.ok(api.get("/api/v1/settings_enterprise"))).toEqual({
      admin_device_management: true,
      client_traffic_policy: "force_all_traffic",
      only_client_activation: false,
    });

    // The user sees why there is no "Add device", and the API refuses anyway.
    const context = await browser.newContext();
    const userPage = await context.newPage();
    await userPage.goto("/login");
    await signIn(userPage, username, password);
    // Leave /login first: navigating while the sign-in request is in flight aborts it.
    await expect(userPage).not.toHaveURL(/\/login/);
    await userPage.goto("/devices");
    await expect(userPage.getByTestId("devices-managed-notice")).toBeVisible();
    await expect(userPage.getByTestId("add-device-link")).toHaveCount(0);
    const user = await apiClient(username, password);
    const refused = await user.post(`/api/v1/device/${username}`, { name: "sneaky", wireguard_pubkey: "u4zC4X4ZbmNLqTl3PY7xvDfYDYVyQrZLS1zEmB7w3Ho=" });
    expect(refused.status()).toBe(403);
    expect((await refused.json()).msg).toBeTruthy();
    await user.dispose();
    await context.close();
  } finally {
    await api.ok(api.patch("/api/v1/settings_enterprise", { admin_device_management: false, client_traffic_policy: "none", only_client_activation: false }));
    await api.dispose();
  }
});
