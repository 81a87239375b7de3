/**
 * Webhooks end to end against the built server: the admin adds a webhook pointing at a real
 * receiver started here (a bad URL is refused on the field first), a new user reaches the
 * receiver signed, the delivery log shows it; a failing receiver leaves a pending delivery
 * with its response code, "retry now" sends it again once the receiver is back; disable, delete.
 */
import { expect, test } from "@playwright/test";
import { startReceiver, type Receiver } from "../tests/http-receiver";
import { apiClient, signInAdmin, suffix } from "./support";

let rx: Receiver;
test.beforeAll(async () => {
  rx = await startReceiver();
});
test.afterAll(async () => {
  await rx.close();
});

test("add a webhook, see deliveries in its log, retry a failed one, disable and delete it", async ({ page }) => {
  const s = suffix();
  const api = await apiClient();
  const url = `${rx.url}?e2e=${s}`;
  const token = `tok-${s}-secret`;

  await signInAdmin(page);
  await page.goto("/webhooks");
  await page.getByTestId("add-webhook").first().click();
  const dialog = page.getByTestId("webhook-dialog");
  await expect(dialog).toBeVisible();

  // A non-http(s) URL is refused on the field.
  await dialog.getByTestId("webhook-url").fill("ftp://198.51.100.1/hook");
  await dialog.getByTestId("webhook-token").fill(token);
  await dialog.getByTestId("webhook-submit").click();
  await expect(dialog.getByTestId("webhook-url")).toHaveAttribute("aria-invalid", "true");

  await dialog.getByTestId("webhook-url").fill(url);
  await dialog.getByTestId("webhook-description").fill(`e2e ${s}`);
  await dialog.getByTestId("webhook-submit").click();
  await expect(dialog).toHaveCount(0);
  const row = page.locator(`[data-testid="webhook-row"][data-url="${url}"]`);
  await expect(row).toBeVisible();
  await expect(row.getByTestId("webhook-state")).toHaveText("Enabled");
  const hooks = await api.ok<{ id: number; url: string; token: string }[]>(api.get("/api/v1/webhook"));
  const hook = hooks.find((h) => h.url === url)!;
  expect(hook.token).toBe(token);

  // A new user reaches the receiver.
  const mine = (username: string) => rx.received.filter((r) => r.path.includes(s) && r.body.includes(`"${username}"`));
  const first = `hook-a-${s}`;
  await api.ok(api.post("/api/v1/user", { username: first, first_name: "Hook", last_name: "E2e", email: `${first}@example.com` }), 201);
  await expect.poll(() => mine(first).length, { timeout: 10_000 }).toBe(1);
  const req = mine(first)[0];
  expect(req.headers["x-defguard-event"]).toBe("user_created");
  expect(req.headers.authorization).toBe(`Bearer ${token}`);
  expect(String(req.headers["x-defguard-signature"])).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

  await page.getByTestId(`webhook-actions-${hook.id}`).click();
  await page.getByTestId("webhook-action-log").click();
  const log = page.getByTestId("delivery-log");
  await expect(log).toBeVisible();
  await expect(log.locator('[data-testid="delivery-row"][data-state="delivered"]')).toHaveCount(1);
  await expect(log.getByTestId("delivery-code").first()).toHaveText("200");
  await page.keyboard.press("Escape");
  await expect(log).toHaveCount(0);

  // The receiver fails: the delivery stays pending with the answer's code.
  rx.answer = (r) => (r.path.includes(s) ? 500 : 200);
  const second = `hook-b-${s}`;
  await api.ok(api.post("/api/v1/user", { username: second, first_name: "Hook", last_name: "E2e", email: `${second}@example.com` }), 201);
  await expect.poll(() => mine(second).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(1);
  await page.getByTestId(`webhook-actions-${hook.id}`).click();
  await page.getByTestId("webhook-action-log").click();
  const pending = log.locator('[data-testid="delivery-row"][data-state="pending"]');
  await expect(pending).toHaveCount(1);
  await expect(pending.getByTestId("delivery-code")).toHaveText("500");

  // Back up: "retry now" delivers it without waiting for the backoff.
  rx.answer = () => 200;
  const before = mine(second).length;
  await pending.getByTestId("delivery-actions").click();
  await page.getByTestId("delivery-retry").click();
  await expect.poll(() => mine(second).length, { timeout: 10_000 }).toBe(before + 1);
  await expect(log.locator('[data-testid="delivery-row"][data-state="delivered"]')).toHaveCount(2, { timeout: 10_000 });
  await page.keyboard.press("Escape");

  // Disable, then delete.
  await page.getByTestId(`webhook-actions-${hook.id}`).click();
  await page.getByTestId("webhook-action-toggle").click();
  await expect(row.getByTestId("webhook-state")).toHaveText("Disabled");
  await page.getByTestId(`webhook-actions-${hook.id}`).click();
  await page.getByTestId("webhook-action-delete").click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).click();
  await expect(row).toHaveCount(0);
  expect((await api.get(`/api/v1/webhook/${hook.id}`)).status()).toBe(404);
});
