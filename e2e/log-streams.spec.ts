/**
 * Settings → Activity log streaming end to end against the built server: the admin adds a
 * Vector HTTP stream with Basic auth pointing at a real receiver started here (a bad URL is
 * refused on the field first); activity reaches the receiver as NDJSON; a failing receiver shows
 * its error and a backlog on the tab, which drains once the receiver is back; rename, delete.
 */
import { expect, test } from "@playwright/test";
import { startReceiver, type Receiver } from "../tests/http-receiver";
import { apiClient, message, signInAdmin, suffix } from "./support";

let rx: Receiver;
test.beforeAll(async () => {
  rx = await startReceiver();
});
test.afterAll(async () => {
  await rx.close();
});

test("add a log stream, see events arrive, a failing receiver's error and backlog, recovery, rename and delete", async ({ page }) => {
  test.setTimeout(180_000);
  const s = suffix();
  const api = await apiClient();
  const url = `${new URL(rx.url).origin}/ingest-${s}`;
  const name = `siem-${s}`;
  const mine = () => rx.received.filter((r) => r.path === `/ingest-${s}`);

  await signInAdmin(page);
  await page.goto("/settings?tab=activity-log-streaming");
  await expect(page.getByTestId("log-streams")).toBeVisible();
  await page.getByTestId("add-log-stream").click();
  const dialog = page.getByTestId("log-stream-dialog");
  await expect(dialog).toBeVisible();
  await dialog.getByTestId("log-stream-name").fill(name);
  // Not http(s): refused on the field, nothing saved.
  await dialog.getByTestId("log-stream-url").fill("ftp://198.51.100.1/ingest");
  await dialog.getByTestId("log-stream-submit").click();
  await expect(dialog.getByTestId("log-stream-url")).toHaveAttribute("aria-invalid", "true");
  const before = await api.ok<{ name: string }[]>(api.get("/api/v1/activity_log_stream"));
  expect(before.some((x) => x.name === name)).toBe(false);

  await dialog.getByTestId("log-stream-url").fill(url);
  await dialog.getByTestId("log-stream-username").fill("vector");
  await dialog.getByTestId("log-stream-password").fill(`pw-${s}`);
  await dialog.getByTestId("log-stream-submit").click();
  await expect(dialog).toHaveCount(0);
  const row = page.locator(`[data-testid="log-stream-row"][data-name="${name}"]`);
  await expect(row).toBeVisible();

  // Activity after the stream exists reaches the receiver as NDJSON with Basic auth.
  const who = `stream-a-${s}`;
  await api.ok(api.post("/api/v1/user", { username: who, first_name: "Stream", last_name: "E2e", email: `${who}@example.com` }), 201);
  await expect.poll(() => mine().some((r) => r.body.includes(who)), { timeout: 15_000 }).toBe(true);
  const req = mine().find((r) => r.body.includes(who))!;
  expect(req.method).toBe("POST");
  expect(req.headers["content-type"]).toContain("application/x-ndjson");
  expect(req.headers.authorization).toBe(`Basic ${Buffer.from(`vector:pw-${s}`).toString("base64")}`);
  for (const line of req.body.trim().split("\n")) expect(() => JSON.parse(line)).not.toThrow();
  // The tab shows a last success and an empty backlog (it refreshes every 5 s).
  await expect(row.getByTestId("log-stream-backlog")).toHaveText("0", { timeout: 15_000 });
  await expect(row).not.toContainText(message("en", "settings.logStreams.never"), { timeout: 15_000 });

  // The receiver fails: the error and a backlog show on the tab.
  rx.answer = (r) => (r.path === `/ingest-${s}` ? 500 : 200);
  const who2 = `stream-b-${s}`;
  await api.ok(api.post("/api/v1/user", { username: who2, first_name: "Stream", last_name: "E2e", email: `${who2}@example.com` }), 201);
  await expect(row.getByTestId("log-stream-error")).toContainText("500", { timeout: 20_000 });
  await expect(row.getByTestId("log-stream-backlog")).not.toHaveText("0");

  // Back: the retry delivers the backlog, which drains to 0.
  rx.answer = () => 200;
  await expect.poll(() => mine().some((r) => r.body.includes(who2)), { timeout: 30_000 }).toBe(true);
  await expect(row.getByTestId("log-stream-backlog")).toHaveText("0", { timeout: 20_000 });

  // Rename through the dialog (the saved password is kept).
  await row.getByRole("button", { name, exact: true }).click();
  const edit = page.getByTestId("log-stream-dialog");
  await expect(edit.getByTestId("log-stream-name")).toHaveValue(name);
  await edit.getByTestId("log-stream-name").fill(`${name}-renamed`);
  await edit.getByTestId("log-stream-submit").click();
  await expect(edit).toHaveCount(0);
  const renamed = page.locator(`[data-testid="log-stream-row"][data-name="${name}-renamed"]`);
  await expect(renamed).toBeVisible();
  const after = await api.ok<{ id: number; name: string; config: { password: string | null } }[]>(api.get("/api/v1/activity_log_stream"));
  const saved = after.find((x) => x.name === `${name}-renamed`)!;
  expect(saved.config.password).toBe(`pw-${s}`);

  // Delete: cancel first (nothing happens), then confirm.
  await page.getByTestId(`log-stream-actions-${saved.id}`).click();
  await page.getByTestId("log-stream-delete").click();
  const confirm = page.getByRole("alertdialog");
  await expect(confirm).toContainText(`${name}-renamed`);
  await confirm.getByRole("button", { name: message("en", "common.cancel") }).click();
  await expect(confirm).toBeHidden();
  await expect(renamed).toBeVisible();
  await page.getByTestId(`log-stream-actions-${saved.id}`).click();
  await page.getByTestId("log-stream-delete").click();
  await confirm.getByRole("button", { name: message("en", "settings.logStreams.delete") }).click();
  await expect(renamed).toHaveCount(0);
  const gone = await api.ok<{ name: string }[]>(api.get("/api/v1/activity_log_stream"));
  expect(gone.some((x) => x.name.startsWith(name))).toBe(false);
});
