/**
 * New-version toast and outdated-components notice, against a console of its own whose
 * DEFGUARD_UPDATE_URL points at a local feed (a loopback HTTP server in this spec): the admin
 * sees the toast, opens the details (Markdown notes, critical flag), dismisses the version and
 * does not see it again after a reload; a gateway older than the minimum version is listed in
 * the notice with a link to its location.
 */
import { readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import pg from "pg";
import { expect, test } from "@playwright/test";
import { E2E_DIST_DIR } from "./setup/build";
import { makeTempDir, startServer, type RunningServer } from "./setup/server";
import { signIn } from "./support";

const ADMIN_PASSWORD = "Upd4te-Admin!x";
let feed: Server;
let server: RunningServer | null = null;
let dir = "";
let feedHits = 0;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  feed = createServer((_req, res) => {
    feedHits++;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        version: "99.1.0",
        critical: true,
        notes: "## Fixes\n\n- **Tunnel** keys are rotated safely\n- Faster overview",
        release_notes_url: "https://example.com/releases/99.1.0",
      }),
    );
  });
  await new Promise<void>((r) => feed.listen(0, "127.0.0.1", r));
  dir = makeTempDir("defguard-updates-");
  server = await startServer({
    distDir: E2E_DIST_DIR,
    dataDir: join(dir, "data"),
    logFile: join(dir, "server.log"),
    env: { DEFGUARD_DEFAULT_ADMIN_PASSWORD: ADMIN_PASSWORD, DEFGUARD_UPDATE_URL: `http://127.0.0.1:${(feed.address() as AddressInfo).port}/feed.json` },
  });
  // An outdated gateway (1.2.0, below the minimum) in a location, written straight to the database.
  const secrets = JSON.parse(readFileSync(join(server.dataDir, "secrets.json"), "utf8")) as { embeddedDbPassword: string };
  const db = new pg.Client({ connectionString: `postgres://defguard:${encodeURIComponent(secrets.embeddedDbPassword)}@127.0.0.1:${server.dbPort}/defguard` });
  await db.connect();
  try {
    const { rows } = await db.query<{ id: number }>(
      "insert into locations (name, address, port, endpoint, pubkey, prvkey_enc) values ('Branch office', '{10.77.0.1/24}', 51820, 'vpn.example.com', 'pub', 'x') returning id",
    );
    await db.query("insert into gateways (location_id, hostname, version, connected) values ($1, 'old-gw', '1.2.0', true)", [rows[0].id]);
  } finally {
    await db.end();
  }
});

test.afterAll(async () => {
  if (server) await server.stop();
  await new Promise((r) => feed?.close(r));
  if (dir && process.env.DEFGUARD_E2E_KEEP !== "1") rmSync(dir, { recursive: true, force: true });
});

test("new-version toast, details modal, dismissal per version; outdated gateways notice", async ({ page }) => {
  await page.goto(`${server!.baseURL}/login`);
  await signIn(page, "admin", ADMIN_PASSWORD);
  await expect(page).not.toHaveURL(/\/login/);

  // The toast names the version and says it is critical.
  const toast = page.getByTestId("update-toast");
  await expect(toast).toContainText("Critical update: version 99.1.0 is available");
  expect(feedHits).toBe(1);

  // The outdated notice lists the old gateway and links to its location.
  const notice = page.getByTestId("outdated-notice");
  await expect(notice).toContainText("Gateway old-gw (1.2.0) of location Branch office");
  await expect(notice.getByTestId("outdated-gateway-link")).toHaveAttribute("href", /^\/locations\/\d+\/gateway$/);

  // Details: the modal with the Markdown notes rendered and the critical flag; the toast is gone.
  await toast.getByTestId("update-details").click();
  const modal = page.getByTestId("update-modal");
  await expect(modal).toBeVisible();
  await expect(page.getByTestId("update-toast")).toHaveCount(0);
  await expect(modal.getByTestId("update-critical")).toBeVisible();
  await expect(modal.getByRole("heading", { name: "Fixes" })).toBeVisible();
  await expect(modal.locator("strong", { hasText: "Tunnel" })).toBeVisible();
  await expect(modal.getByRole("link", { name: /Full release notes/ })).toHaveAttribute("href", "https://example.com/releases/99.1.0");

  // Dismiss this version: remembered in this browser, no toast after a reload.
  await modal.getByTestId("update-dismiss").click();
  await expect(modal).toHaveCount(0);
  const stored = await page.evaluate(() => JSON.parse(localStorage.getItem("defguard-update-dismissal") ?? "null"));
  expect(stored).toMatchObject({ version: "99.1.0", dismissedAt: expect.any(String) });
  await page.reload();
  await expect(page.getByTestId("app-shell")).toBeVisible();
  await expect(page.getByTestId("outdated-notice")).toBeVisible();
  await expect(page.getByTestId("update-toast")).toHaveCount(0);

  // Another version is not dismissed by that: with the stored dismissal of an older one it shows again.
  await page.evaluate(() => localStorage.setItem("defguard-update-dismissal", JSON.stringify({ version: "98.0.0", dismissedAt: new Date().toISOString() })));
  await page.reload();
  await expect(page.getByTestId("update-toast")).toBeVisible();
  // The feed was read once: the console caches its answer.
  expect(feedHits).toBe(1);
});
