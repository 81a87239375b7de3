/**
 * defguard 1.6 wire compatibility through the real server (Next's router, static files):
 * unknown /api/v1 paths answer a JSON 404, the default logos are served under /svg/, and the
 * SMTP settings form saves defguard's encryption values.
 */
import { expect, test } from "@playwright/test";
import { apiClient, message, signInAdmin } from "./support";

test("unknown /api/v1 paths answer 404 {msg} in JSON, real routes still answer", async () => {
  const api = await apiClient();
  for (const [method, path] of [
    ["GET", "/api/v1/no-such-thing"],
    ["GET", "/api/v1/user/admin/no-such-thing/deeper"],
    ["POST", "/api/v1/device/network/ip/1/extra"],
    ["DELETE", "/api/v1/nothing/here"],
  ] as const) {
    const res = method === "GET" ? await api.get(path) : method === "POST" ? await api.post(path, {}) : await api.delete(path);
    expect(res.status(), `${method} ${path}`).toBe(404);
    expect(res.headers()["content-type"]).toContain("application/json");
    expect(await res.json()).toEqual({ msg: `no such API endpoint: ${path}` });
  }
  expect((await api.get("/api/v1/health")).status()).toBe(200);
  expect((await api.get("/api/v1/user/admin/auth_key")).status()).toBe(200);
  await api.dispose();
});

test("the default logos are served under /svg/ and settings_essentials points at them", async () => {
  const api = await apiClient();
  await api.ok(api.patch("/api/v1/settings", { main_logo_url: "", nav_logo_url: "" }));
  const essentials = await api.ok<{ main_logo_url: string; nav_logo_url: string }>(api.get("/api/v1/settings_essentials"));
  expect(essentials).toMatchObject({ main_logo_url: "/svg/logo-defguard-white.svg", nav_logo_url: "/svg/defguard-nav-logo.svg" });
  for (const url of [essentials.main_logo_url, essentials.nav_logo_url]) {
    const res = await api.get(url);
    expect(res.status(), url).toBe(200);
    expect(res.headers()["content-type"]).toContain("image/svg+xml");
  }
  await api.dispose();
});

test("the SMTP form saves defguard's encryption values", async ({ page }) => {
  const api = await apiClient();
  type Smtp = { smtp_server: string | null; smtp_port: number | null; smtp_encryption: string; smtp_user: string | null; smtp_sender: string | null };
  const before = await api.ok<Smtp>(api.get("/api/v1/settings"));
  await signInAdmin(page);
  await page.goto("/settings");
  await page.getByTestId("smtp-server").fill("mail.e2e.example");
  await page.getByTestId("smtp-port").fill("465");
  await page.getByTestId("smtp-encryption").click();
  await page.getByRole("option", { name: message("en", "settings.smtp.encryptions.ImplicitTls") }).click();
  await page.getByTestId("smtp-sender").fill("vpn@e2e.example");
  await page.getByTestId("smtp-save").click();
  await expect.poll(async () => (await api.ok<{ smtp_encryption: string }>(api.get("/api/v1/settings"))).smtp_encryption).toBe("ImplicitTls");
  await page.reload();
  await expect(page.getByTestId("smtp-encryption")).toHaveText(message("en", "settings.smtp.encryptions.ImplicitTls"));
  // Leave SMTP as the other specs set it up.
  const { smtp_server, smtp_port, smtp_encryption, smtp_user, smtp_sender } = before;
  await api.ok(api.patch("/api/v1/settings", { smtp_server, smtp_port, smtp_encryption, smtp_user, smtp_sender }));
  await api.dispose();
});
