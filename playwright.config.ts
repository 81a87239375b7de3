/**
 * End-to-end tests in Debian's Chromium (/usr/bin/chromium; never a downloaded browser)
 * against the built console. e2e/setup/global-setup.ts builds into .next-e2e when needed and
 * starts the server on a fresh temp data directory and a free port; the teardown stops it.
 *
 *   npx playwright test                      # or: npm run test:e2e
 *   DEFGUARD_E2E_REPORTER=line,html npx playwright test
 *   DEFGUARD_E2E_KEEP=1 npx playwright test  # keep the temp dir (server log) afterwards
 *
 * The network tests (e2e/net, namespaces and WireGuard) have their own entry point.
 */
import { defineConfig, type ReporterDescription } from "@playwright/test";

function reporters(): ReporterDescription[] {
  const spec = process.env.DEFGUARD_E2E_REPORTER || (process.env.CI ? "line" : "list");
  return spec
    .split(",")
    .map((r) => r.trim())
    .filter(Boolean)
    .map((r): ReporterDescription => (r === "html" ? ["html", { open: "never" }] : [r]));
}

export default defineConfig({
  testDir: "e2e",
  testIgnore: [/[\\/]e2e[\\/]net[\\/]/],
  outputDir: "test-results",
  globalSetup: "./e2e/setup/global-setup.ts",
  globalTeardown: "./e2e/setup/global-teardown.ts",
  workers: 1,
  fullyParallel: false,
  retries: 0,
  forbidOnly: !!process.env.CI,
  timeout: 120_000,
  expect: { timeout: 10_000 },
  reporter: reporters(),
  use: {
    // Set by the global setup before the workers start (they inherit the environment).
    baseURL: process.env.DEFGUARD_E2E_BASE_URL,
    headless: true,
    browserName: "chromium",
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--disable-dev-shm-usage",
      ],
    },
    locale: "en-US",
    timezoneId: "UTC",
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
});
