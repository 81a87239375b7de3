/**
 * MFA for VPN locations in the console: the location form explains each MFA mode under its
 * selector (the hint is the selector's accessible description and changes with the choice), and
 * the VPN overview marks a device connected through an MFA session with an "MFA" badge. The
 * session is made the way a desktop client makes it: the user has TOTP, and the anonymous
 * /client-mfa/start and /finish calls pass MFA for the device in an internal-MFA location.
 */
import { generateKeyPairSync } from "node:crypto";
import { expect, test } from "@playwright/test";
import { generate } from "otplib";
import { ApiClient, apiClient, createLocation, message, signInAdmin, suffix } from "./support";

const MODES = ["disabled", "internal", "external"] as const;
const PASSWORD = "Mfa-Locati0n!";
const currentStep = () => Math.floor(Date.now() / 1000 / 30);
const totpCode = (secret: string, step: number) => generate({ secret, epoch: step * 30 });

function wireguardPublicKey(): string {
  const { publicKey } = generateKeyPairSync("x25519");
  return publicKey.export({ type: "spki", format: "der" }).subarray(-32).toString("base64");
}

test("the location form explains each MFA mode", async ({ page }) => {
  const admin = await apiClient();
  const location = await createLocation(admin, { name: `mfa-hints-${suffix()}` });
  await admin.dispose();
  // Three different explanations, or the check below could not tell them apart.
  const hints = MODES.map((m) => message("en", `locations.form.mfaHints.${m}`));
  expect(new Set(hints).size).toBe(3);

  await signInAdmin(page);
  await page.goto(`/locations/${location.id}/edit`);
  const select = page.getByTestId("location-mfa-mode");
  await expect(select).toContainText(message("en", "locations.form.mfaModes.disabled"));
  await expect(select).toHaveAccessibleDescription(hints[0]);
  for (const [i, mode] of [...MODES.entries()].reverse()) {
    await select.click();
    await page.getByRole("option", { name: message("en", `locations.form.mfaModes.${mode}`), exact: true }).click();
    await expect(select).toHaveAccessibleDescription(hints[i]);
    await expect(page.getByText(hints[i], { exact: true })).toBeVisible();
    for (const [j, other] of hints.entries()) if (j !== i) await expect(page.getByText(other, { exact: true })).toHaveCount(0);
    if (mode === "internal") await page.screenshot({ path: "test-results/location-mfa-hint.png", fullPage: true });
  }
});

test("the overview marks a device connected through an MFA session", async ({ page }) => {
  const sfx = suffix();
  const username = `mfaov-${sfx}`;
  const group = `mfaov-${sfx}`;
  const admin = await apiClient();
  await admin.ok(admin.post("/api/v1/user", { username, first_name: "Omar", last_name: "Overview", email: `${username}@example.com`, password: PASSWORD }), 201);
  await admin.ok(admin.post("/api/v1/group", { name: group, members: [username] }), 201);
  // Only this group may use the location: no other spec's user meets its MFA.
  const location = await createLocation(admin, {
    name: `mfa-ov-${sfx}`,
    address: `10.${150 + Math.floor(Math.random() * 50)}.11.1/24`,
    allowed_groups: [group],
    location_mfa_mode: "internal",
  });
  const pubkey = wireguardPublicKey();
  await admin.ok(admin.post(`/api/v1/device/${username}`, { name: `omar-laptop-${sfx}`, wireguard_pubkey: pubkey }), 201);

  // The user turns TOTP on.
  const user = await apiClient(username, PASSWORD);
  const { secret } = await user.ok<{ secret: string }>(user.post("/api/v1/auth/totp/init"));
  await user.ok(user.post("/api/v1/auth/totp", { code: await totpCode(secret, currentStep()) }));
  await user.dispose();

  await signInAdmin(page);
  await page.goto(`/overview?location=${location.id}`);
  await expect(page.getByTestId("overview-users")).toBeVisible();
  // No session yet: the device is not on the overview, and there is no badge.
  await expect(page.getByTestId("overview-mfa-session")).toHaveCount(0);

  // The desktop client's MFA for the location (anonymous, as against defguard's proxy). The next
  // step's code: the one that enabled TOTP may not be used twice.
  const client = await ApiClient.create();
  const { token } = await client.ok<{ token: string }>(client.post("/api/v1/client-mfa/start", { location_id: location.id, pubkey, method: 0 }));
  const { preshared_key } = await client.ok<{ preshared_key: string }>(
    client.post("/api/v1/client-mfa/finish", { token, code: await totpCode(secret, currentStep() + 1) }),
  );
  expect(Buffer.from(preshared_key, "base64")).toHaveLength(32);
  await client.dispose();

  await page.reload();
  const card = page.locator(`[data-testid="overview-user-card"][data-username="${username}"]`);
  await expect(card).toBeVisible();
  const badge = card.getByTestId("overview-mfa-session");
  await expect(badge).toHaveText(message("en", "overview.users.mfaSession"));
  const prefix = message("en", "overview.users.mfaSessionTitle").split("{time}")[0];
  await expect(badge).toHaveAttribute("title", new RegExp(`^${prefix}\\S`));
  await page.screenshot({ path: "test-results/overview-mfa-session.png", fullPage: true });

  // The list view shows it too.
  await page.getByTestId("overview-view-list").click();
  const row = page.locator(`[data-testid="overview-device-row"][data-username="${username}"]`);
  await expect(row.getByTestId("overview-mfa-session")).toBeVisible();
  await page.getByTestId("overview-view-grid").click();

  // The session and its log entry are the service's.
  const log = await admin.ok<{ data: { event: string }[] }>(admin.get(`/api/v1/activity_log?username=${username}`));
  expect(log.data.map((e) => e.event)).toContain("vpn_client_connected_mfa");
  // Leave nothing for the specs after this one: the overview of all locations counts this session.
  await admin.ok(admin.delete(`/api/v1/network/${location.id}`));
  await admin.ok(admin.delete(`/api/v1/user/${username}`));
  await admin.dispose();
});
