/**
 * Settings → Global in the browser: a module switched off disappears from the navigation and
 * its screen says it is off (its API answers 403 module_disabled); an uploaded navigation logo
 * is shown in the frame and served with caching headers; restoring the default branding brings
 * the default logo back.
 */
import { deflateSync } from "node:zlib";
import { expect, test } from "@playwright/test";
import { apiClient, signInAdmin } from "./support";

/** A real PNG of w x h grey pixels. */
function png(w: number, h: number): Buffer {
  const table = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (b: Buffer) => {
    let c = 0xffffffff;
    for (const x of b) c = table[(c ^ x) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const c = Buffer.alloc(4);
    c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  const raw = Buffer.alloc((w + 1) * h, 0x60);
  for (let y = 0; y < h; y++) raw[y * (w + 1)] = 0;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]);
}

test("a switched-off module is hidden and refused; its screen says so", async ({ page }) => {
  const api = await apiClient();
  await api.ok(api.patch("/api/v1/settings", { webhooks_enabled: false }));
  try {
    await signInAdmin(page);
    await page.goto("/users");
    await expect(page.getByTestId("nav-item-users")).toBeVisible();
    await expect(page.getByTestId("nav-item-webhooks")).toHaveCount(0);
    await page.goto("/webhooks");
    await expect(page.getByTestId("module-off")).toContainText("Webhooks is turned off");
    const res = await api.get("/api/v1/webhook");
    expect(res.status()).toBe(403);
    expect(await res.json()).toMatchObject({ code: "module_disabled" });
  } finally {
    await api.ok(api.patch("/api/v1/settings", { webhooks_enabled: true }));
  }
  await page.goto("/webhooks");
  await expect(page.getByTestId("module-off")).toHaveCount(0);
  await expect(page.getByTestId("nav-item-webhooks")).toBeVisible();
});

test("upload a navigation logo, see it in the frame, restore the default branding", async ({ page }) => {
  await signInAdmin(page);
  await page.goto("/settings?tab=global");
  await page.getByTestId("logo-file-nav").setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: png(64, 64) });
  await expect(page.getByText("Logo uploaded")).toBeVisible();
  const navLogo = page.getByTestId("app-shell").locator('img[src^="/api/v1/branding/logo/nav?v="]').first();
  await expect(navLogo).toBeVisible();
  const src = (await navLogo.getAttribute("src"))!;
  const served = await page.request.get(src);
  expect(served.status()).toBe(200);
  expect(served.headers()["content-type"]).toBe("image/png");
  expect(served.headers()["cache-control"]).toContain("immutable");
  expect(served.headers()["etag"]).toMatch(/^"[0-9a-f]{32}"$/);

  // Too large for the navigation logo: refused with the server's reason, nothing changes.
  await page.getByTestId("logo-file-nav").setInputFiles({ name: "big.png", mimeType: "image/png", buffer: png(300, 300) });
  await expect(page.getByTestId("toast").filter({ hasText: /navigation logo may be at most 100×100 px/ })).toBeVisible();
  await expect(navLogo).toHaveAttribute("src", src);

  await page.getByTestId("restore-branding").click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Restore default branding" }).click();
  await expect(page.getByText("Default branding restored")).toBeVisible();
  await expect(page.getByTestId("app-shell").locator('img[src="/svg/defguard-nav-logo.svg"]').first()).toBeVisible();
});
