/**
 * A network device configured with the defguard CLI, end to end: the admin adds it with
 * "Configure with the defguard CLI", copies the `dg -u <url> -t <token>` command from the modal,
 * and a client doing what `dg` does (its own cookie jar: /enrollment/start, then
 * /enrollment/create_device with a public key) configures it; the list then shows it configured.
 * "Generate CLI token" on a device still waiting shows a new command.
 */
import { generateKeyPairSync } from "node:crypto";
import { expect, request, test, type Page } from "@playwright/test";
import { apiClient, baseURL, message, signInAdmin, suffix, createLocation } from "./support";

/** A WireGuard public key (x25519, base64), as `dg` would send. */
function newPublicKey(): string {
  const spki = generateKeyPairSync("x25519").publicKey.export({ format: "der", type: "spki" });
  return spki.subarray(spki.length - 32).toString("base64");
}



/** The url and token of the command shown in the modal. */
async function shownCommand(page: Page): Promise<{ url: string; token: string }> {
  const code = page.getByTestId("cli-command-code").locator("code");
  await expect(code).toHaveText(/^dg -u \S+ -t \S+$/);
  const [, url, token] = (await code.innerText()).trim().match(/^dg -u (\S+) -t (\S+)$/)!;
  return { url, token };
}

test("a network device set up with the defguard CLI gets its key from the CLI", async ({ page }) => {
  const api = await apiClient();
  const s = suffix();
  const location = await createLocation(api, { name: `cli-${s}`, port: 51998 });
  const name = `cli-router-${s}`;

  await signInAdmin(page);
  await page.goto("/network-devices");
  await page.getByTestId("add-network-device").first().click();
  await page.getByTestId("nd-name").fill(name);
  await page.getByTestId("nd-location").click();
  await page.getByRole("option", { name: location.name }).click();
  await page.getByTestId("key-method-cli").check();
  // The suggested address has been checked (the form is sent only with valid, free addresses).
  await expect(page.getByTestId("network-device-form").getByLabel(message("en", "networkDevices.ips.available"))).toBeVisible();
  await page.getByTestId("nd-submit").click();

  await expect(page.getByTestId("cli-command")).toBeVisible();
  await expect(page.getByTestId("cli-expiry")).toBeVisible();
  const { url, token } = await shownCommand(page);
  expect(url).toBe(baseURL().replace(/\/+$/, ""));
  await page.getByTestId("nd-done").click();

  const row = page.locator(`[data-testid="nd-row"][data-device="${name}"]`);
  await expect(row.getByTestId("nd-not-configured")).toBeVisible();
  // Without a key there is no configuration to download; a new token can be made instead.
  await row.getByTestId("nd-actions").click();
  await expect(page.getByTestId("nd-download")).toHaveCount(0);
  await page.getByTestId("nd-cli-token").click();
  await page.getByTestId("cli-generate").click();
  const fresh = await shownCommand(page);
  expect(fresh.token).not.toBe(token);
  await page.getByTestId("cli-done").click();

  // What `dg -u <url> -t <token>` does, with its own cookie jar.
  const dg = await request.newContext({ baseURL: url });
  const old = await dg.post("/api/v1/enrollment/start", { data: { token } });
  expect(old.status()).toBe(401);
  const start = await dg.post("/api/v1/enrollment/start", { data: { token: fresh.token } });
  expect(start.status(), await start.text()).toBe(200);
  expect((await start.json()).instance).toMatchObject({ url, proxy_url: url });
  const pubkey = newPublicKey();
  const created = await dg.post("/api/v1/enrollment/create_device", { data: { name: "", pubkey, token: null } });
  expect(created.status(), await created.text()).toBe(200);
  const body = await created.json();
  expect(body.device).toMatchObject({ name, pubkey });
  expect(body.configs).toHaveLength(1);
  expect(body.configs[0]).toMatchObject({ network_id: location.id, pubkey: location.pubkey, endpoint: "vpn.e2e.example:51998" });
  expect((await dg.post("/api/v1/enrollment/create_device", { data: { name: "", pubkey: newPublicKey(), token: fresh.token } })).status()).toBe(401);
  await dg.dispose();

  // The list shows it configured, with its configuration to download.
  await page.reload();
  await expect(row).toBeVisible();
  await expect(row.getByTestId("nd-not-configured")).toHaveCount(0);
  await row.getByTestId("nd-actions").click();
  await expect(page.getByTestId("nd-download")).toBeVisible();
  await expect(page.getByTestId("nd-cli-token")).toHaveCount(0);
  await page.keyboard.press("Escape");

  await api.ok(api.delete(`/api/v1/network/${location.id}`));
  await api.dispose();
});
