/**
 * Console weight: the JavaScript a browser downloads, measured in Chromium against a running
 * production build (compressed bytes on the wire, as the server sends them, and the same
 * scripts' uncompressed size):
 * - a fresh browser opening the sign-in page (every script it fetches until the network is idle);
 * - then signing in through the form and landing on the overview (the scripts added by that).
 * Targets (README): sign-in page ≤ 150 KB gzip, overview after sign-in ≤ 250 KB more.
 * Nothing here asserts anything.
 */
import { chromium, type Page, type Response } from "@playwright/test";
import { gzipSync } from "node:zlib";
import { join } from "node:path";
import { ensureBuild, E2E_DIST_DIR } from "../../e2e/setup/build";
import { makeTempDir, startServer } from "../../e2e/setup/server";
import type { Row, Suite, SuiteContext } from "../lib/types";

interface Script {
  url: string;
  /** Bytes on the wire (the response body as sent, compressed when the server compressed it). */
  wire: number;
  /** gzip -6 of the body: what a compressing server or proxy sends. */
  gzip: number;
  raw: number;
}

/** Collect every script response of the page while `action` runs. */
async function scriptsDuring(page: Page, action: () => Promise<void>): Promise<Script[]> {
  const seen = new Map<string, Script>();
  const pending: Promise<void>[] = [];
  const onResponse = (res: Response) => {
    if (res.request().resourceType() !== "script" || seen.has(res.url())) return;
    pending.push(
      (async () => {
        const body = await res.body().catch(() => Buffer.alloc(0));
        const sizes = await res.request().sizes().catch(() => null);
        const wire = sizes ? sizes.responseBodySize : body.length;
        seen.set(res.url(), { url: res.url(), wire, gzip: gzipSync(body).length, raw: body.length });
      })(),
    );
  };
  page.on("response", onResponse);
  try {
    await action();
    await page.waitForLoadState("networkidle");
    await Promise.all(pending);
  } finally {
    page.off("response", onResponse);
  }
  return [...seen.values()];
}

const kb = (n: number) => (n / 1024).toFixed(1);
const sum = (list: Script[], k: keyof Omit<Script, "url">) => list.reduce((a, s) => a + s[k], 0);

async function run(ctx: SuiteContext): Promise<Row[]> {
  await ensureBuild({ root: ctx.root, distDir: E2E_DIST_DIR, log: ctx.log });
  const dir = makeTempDir("defguard-bench-weight-");
  const server = await startServer({ root: ctx.root, entry: "server", distDir: E2E_DIST_DIR, dataDir: join(dir, "data"), logFile: join(dir, "server.log") });
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  try {
    if (!server.adminPassword) throw new Error("no generated admin password in the server output");
    // Warm the server (first requests load route modules), in a context of its own.
    const warm = await browser.newContext({ baseURL: server.baseURL });
    await (await warm.newPage()).goto("/login");
    await warm.close();

    const context = await browser.newContext({ baseURL: server.baseURL });
    const page = await context.newPage();
    const login = await scriptsDuring(page, async () => {
      await page.goto("/login");
    });
    const overview = await scriptsDuring(page, async () => {
      await page.getByTestId("login-username").fill("admin");
      await page.getByTestId("login-password").fill(server.adminPassword!);
      await page.getByTestId("login-submit").click();
      await page.waitForURL((u) => !u.pathname.startsWith("/login"), { timeout: 60_000 });
    });
    const added = overview.filter((s) => !login.some((l) => l.url === s.url));
    ctx.log(`[weight] sign-in page: ${login.length} scripts; after sign-in on ${new URL(page.url()).pathname}: ${added.length} more`);
    const largest = (list: Script[]) =>
      [...list]
        .sort((a, b) => b.gzip - a.gzip)
        .slice(0, 3)
        .map((s) => `${new URL(s.url).pathname.split("/").pop()} ${kb(s.gzip)}`)
        .join(", ");
    return [
      { measure: "sign-in page: scripts", value: String(login.length), target: "", note: `largest (KB gzip): ${largest(login)}` },
      { measure: "sign-in page: JavaScript, gzip (KB)", value: kb(sum(login, "gzip")), target: "≤ 150", note: `on the wire ${kb(sum(login, "wire"))} KB; uncompressed ${kb(sum(login, "raw"))} KB` },
      { measure: `after sign-in (${new URL(page.url()).pathname}): scripts added`, value: String(added.length), target: "", note: `largest (KB gzip): ${largest(added)}` },
      { measure: "after sign-in: JavaScript added, gzip (KB)", value: kb(sum(added, "gzip")), target: "≤ 250", note: `on the wire ${kb(sum(added, "wire"))} KB; uncompressed ${kb(sum(added, "raw"))} KB` },
    ];
  } finally {
    await browser.close().catch(() => {});
    await server.stop();
  }
}

const suite: Suite = {
  name: "weight",
  description: "JavaScript a browser downloads (Chromium, production build): the sign-in page, then what signing in and opening the overview adds",
  run,
};
export default suite;
