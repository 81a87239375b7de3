/**
 * Enrolment in Chromium, from the admin's start to a working configuration: the admin starts
 * the enrolment of a user created without a password (e-mail to a local SMTP sink), the user
 * opens the e-mailed link, sets a password, adds a device with keys made in the browser, and
 * gets the welcome page with the configuration, its QR code and the download. The private key
 * in the configuration belongs to the public key the console stored; the new password signs in;
 * the link does not work twice. A user who may use a location with internal MFA sets up TOTP
 * on the way (the code computed here from the secret the page shows), sees the recovery codes
 * once, and ends enrolled with TOTP on.
 */
import { createPrivateKey, createPublicKey } from "node:crypto";
import { expect, test } from "@playwright/test";
import { generate } from "otplib";
import { ApiClient, apiClient, createLocation, signIn, signInAdmin, suffix, configPanel } from "./support";
import { startSmtpSink, type SmtpSink } from "./smtp-sink";

const PASSWORD = "Enr0l-in-Chromium!";

/** The token of the enrolment link in a raw message (quoted-printable soft breaks and =3D undone). */
function linkToken(raw: string): string {
  const text = raw.replace(/=\r?\n/g, "").replace(/=3D/gi, "=");
  const m = /\/enroll\?token=([A-Za-z0-9_-]+)/.exec(text);
  if (!m) throw new Error("no enrolment link in the e-mail");
  return m[1];
}

/** The X25519 public key of a WireGuard private key (both base64), through a PKCS#8 wrapping. */
function publicKeyOf(privateKey: string): string {
  const der = Buffer.concat([Buffer.from("302e020100300506032b656e04220420", "hex"), Buffer.from(privateKey, "base64")]);
  const pub = createPublicKey(createPrivateKey({ key: der, format: "der", type: "pkcs8" }));
  return (pub.export({ format: "der", type: "spki" }) as Buffer).subarray(-32).toString("base64");
}

test.describe("enrollment", () => {
  let sink: SmtpSink;
  let admin: ApiClient;

  test.beforeAll(async () => {
    sink = await startSmtpSink();
    admin = await apiClient();
    await admin.ok(
      admin.patch("/api/v1/settings", { smtp_server: "127.0.0.1", smtp_port: sink.port, smtp_encryption: "None", smtp_sender: "console@example.com" }),
    );
  });

  test.afterAll(async () => {
    await admin.patch("/api/v1/settings", { smtp_server: null, smtp_port: null, smtp_sender: null });
    await admin.dispose();
    await sink.close();
  });

  test("from the e-mailed link to a working configuration", async ({ page }) => {
    const sfx = suffix();
    const username = `enrol-${sfx}`;
    const location = await createLocation(admin, { name: `Enrol ${sfx}`, address: `10.${150 + Math.floor(Math.random() * 50)}.7.1/24` });
    await admin.ok(admin.post("/api/v1/user", { username, first_name: "Edna", last_name: "Enrol", email: `${username}@example.com` }), 201);

    const index = sink.messages.length;
    const started = await admin.ok<{ enrollment_token: string; enrollment_url: string }>(
      admin.post(`/api/v1/user/${username}/start_enrollment`, { send_enrollment_notification: true, email: `${username}@example.com` }),
      201,
    );
    const mail = await sink.next(index);
    expect(mail.to).toEqual([`${username}@example.com`]);
    const token = linkToken(mail.raw);
    expect(token).toBe(started.enrollment_token);

    // The link: the token is filled in.
    await page.goto(`/enroll?token=${encodeURIComponent(token)}`);
    await expect(page.getByTestId("enroll-token")).toHaveValue(token);
    await page.getByTestId("enroll-start").click();

    // Password: the rules apply in the page.
    await expect(page.locator("main")).toContainText(username);
    await page.getByTestId("enroll-password").fill("weak");
    await page.getByTestId("enroll-confirm").fill("weak");
    await page.getByTestId("enroll-password-next").click();
    await expect(page.getByTestId("enroll-password-form")).toBeVisible();
    await page.getByTestId("enroll-password").fill(PASSWORD);
    await page.getByTestId("enroll-confirm").fill(PASSWORD);
    await page.getByTestId("enroll-password-next").click();

    // Nothing requires MFA of this user: no MFA step, straight to the device.
    await expect(page.getByTestId("enroll-device-form")).toBeVisible();
    await expect(page.getByTestId("enroll-mfa")).toHaveCount(0);

    // Device with keys made in the browser.
    await page.getByTestId("enroll-device-name").fill("edna-laptop");
    await page.getByTestId("enroll-device-submit").click();

    const done = page.getByTestId("enroll-done");
    await expect(done).toBeVisible();
    await expect(page.getByTestId("enroll-welcome")).toContainText("Edna");
    const panel = await configPanel(page, location.name);
    await expect(panel.getByTestId("config-qr")).toBeVisible();
    await page.screenshot({ path: "test-results/enroll-done.png", fullPage: true });
    const config = (await panel.getByTestId("device-config").textContent()) ?? "";
    expect(config).toContain("[Interface]");
    expect(config).toContain(`PublicKey = ${location.pubkey}`);
    const privateKey = /PrivateKey\s*=\s*([A-Za-z0-9+/]{43}=)/.exec(config)?.[1];
    expect(privateKey, config).toBeTruthy();

    // The download is exactly the configuration.
    const [download] = await Promise.all([page.waitForEvent("download"), panel.getByTestId("code-download").click()]);
    expect(download.suggestedFilename()).toMatch(/\.conf$/);

    // The console stored the public key of that private key, and the user is enrolled.
    const details = await admin.ok<{ user: { enrolled: boolean }; devices: { name: string; wireguard_pubkey: string }[] }>(admin.get(`/api/v1/user/${username}`));
    expect(details.user.enrolled).toBe(true);
    const device = details.devices.find((d) => d.name === "edna-laptop");
    expect(device?.wireguard_pubkey).toBe(publicKeyOf(privateKey!));

    // The new password signs in.
    await page.getByTestId("enroll-to-login").click();
    await signIn(page, username, PASSWORD);
    await expect(page).toHaveURL(/\/me/);

    // The link works once.
    const again = await page.context().request.post("/api/v1/enrollment/start", { data: { token } });
    expect(again.status()).toBe(401);
    expect(await again.json()).toMatchObject({ error: "token already used" });
  });

  test("a location with internal MFA: TOTP set up during the enrolment, then the device and its config", async ({ page }) => {
    const sfx = suffix();
    const username = `enmfa-${sfx}`;
    const group = `mfa-vpn-${sfx}`;
    await admin.ok(admin.post("/api/v1/user", { username, first_name: "Mia", last_name: "Mfa", email: `${username}@example.com` }), 201);
    await admin.ok(admin.post("/api/v1/group", { name: group, members: [username] }), 201);
    // Only this group may use the location, so no other enrolment of the run meets its MFA.
    const location = await createLocation(admin, {
      name: `Enrol MFA ${sfx}`,
      address: `10.${150 + Math.floor(Math.random() * 50)}.9.1/24`,
      allowed_groups: [group],
      location_mfa_mode: "internal",
    });

    const index = sink.messages.length;
    await admin.ok(admin.post(`/api/v1/user/${username}/start_enrollment`, { send_enrollment_notification: true, email: `${username}@example.com` }), 201);
    const token = linkToken((await sink.next(index)).raw);

    await page.goto(`/enroll?token=${encodeURIComponent(token)}`);
    await page.getByTestId("enroll-start").click();
    await page.getByTestId("enroll-password").fill(PASSWORD);
    await page.getByTestId("enroll-confirm").fill(PASSWORD);
    await page.getByTestId("enroll-password-next").click();

    // The MFA step, which has no way around it.
    const step = page.getByTestId("enroll-mfa");
    await expect(step).toBeVisible();
    await expect(step.getByTestId("enroll-mfa-email")).toBeEnabled();
    await page.getByTestId("enroll-mfa-totp").click();
    await expect(page.getByTestId("enroll-mfa-qr")).toBeVisible();
    const secret = ((await page.getByTestId("enroll-mfa-secret").textContent()) ?? "").replace(/\s+/g, "");
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await page.screenshot({ path: "test-results/enroll-mfa.png", fullPage: true });

    // A wrong code is refused on the field and changes nothing.
    const right = await generate({ secret });
    await page.getByTestId("enroll-mfa-code-input").fill(right === "000000" ? "111111" : "000000");
    await expect(page.getByTestId("enroll-mfa")).toContainText(/invalid/i);
    const before = await admin.ok<{ user: { mfa_enabled: boolean; totp_enabled: boolean } }>(admin.get(`/api/v1/user/${username}`));
    expect(before.user).toMatchObject({ mfa_enabled: false, totp_enabled: false });

    // The right code (computed from the secret on screen) turns TOTP on: recovery codes, once.
    await page.getByTestId("enroll-mfa-code-input").fill(await generate({ secret }));
    const codes = page.getByTestId("recovery-codes-dialog");
    await expect(codes).toBeVisible();
    await expect(codes.getByTestId("recovery-code")).toHaveCount(8);
    await expect(page.getByTestId("recovery-done")).toBeDisabled();
    await page.getByTestId("recovery-saved").click();
    await page.getByTestId("recovery-done").click();
    await expect(codes).toHaveCount(0);

    // Then the device and the welcome page with the MFA location's configuration.
    await page.getByTestId("enroll-device-name").fill("mia-laptop");
    await page.getByTestId("enroll-device-submit").click();
    await expect(page.getByTestId("enroll-done")).toBeVisible();
    await expect(page.getByTestId("enroll-finish-error")).toHaveCount(0);
    const panel = await configPanel(page, location.name);
    const config = (await panel.getByTestId("device-config").textContent()) ?? "";
    expect(config).toContain(`PublicKey = ${location.pubkey}`);
    expect(config).toMatch(/PrivateKey\s*=\s*[A-Za-z0-9+/]{43}=/);

    // Enrolled, with TOTP as the account's MFA method.
    const after = await admin.ok<{ user: { enrolled: boolean; mfa_enabled: boolean; totp_enabled: boolean; email_mfa_enabled: boolean } }>(
      admin.get(`/api/v1/user/${username}`),
    );
    expect(after.user).toMatchObject({ enrolled: true, mfa_enabled: true, totp_enabled: true, email_mfa_enabled: false });
    const log = await admin.ok<{ data: { event: string }[] }>(admin.get(`/api/v1/activity_log?username=${username}`));
    expect(log.data.map((e) => e.event)).toEqual(expect.arrayContaining(["enrollment_started", "mfa_totp_enabled", "enrollment_device_added", "enrollment_completed"]));

    // Signing in now asks for the second factor.
    await page.getByTestId("enroll-to-login").click();
    await signIn(page, username, PASSWORD);
    await expect(page.getByTestId("mfa-totp-input")).toBeVisible();
  });

  test("password reset by e-mail link through the public pages", async ({ page }) => {
    const username = `reset-${suffix()}`;
    await admin.ok(
      admin.post("/api/v1/user", { username, first_name: "Rita", last_name: "Reset", email: `${username}@example.com`, password: "Old-Passw0rd!" }),
      201,
    );
    await page.goto("/login");
    await page.getByTestId("login-forgot").click();
    await expect(page).toHaveURL(/\/password-reset/);
    const index = sink.messages.length;
    await page.getByTestId("password-reset-email").fill(`${username}@example.com`);
    await page.getByTestId("password-reset-request").click();
    await expect(page.getByTestId("password-reset-sent")).toBeVisible();
    const mail = await sink.next(index);
    const text = mail.raw.replace(/=\r?\n/g, "").replace(/=3D/gi, "=");
    const token = /\/password-reset\?token=([A-Za-z0-9_-]+)/.exec(text)?.[1];
    expect(token).toBeTruthy();

    await page.goto(`/password-reset?token=${token}`);
    await page.getByTestId("password-reset-password").fill("New-Passw0rd!");
    await page.getByTestId("password-reset-confirm").fill("New-Passw0rd!");
    await page.getByTestId("password-reset-submit").click();
    await expect(page.getByTestId("password-reset-done")).toBeVisible();
    await page.getByTestId("password-reset-login").click();
    await signIn(page, username, "New-Passw0rd!");
    await expect(page).toHaveURL(/\/me/);

    // The three steps are in the activity log, and the link works once.
    const log = await admin.ok<{ data: { event: string }[] }>(admin.get(`/api/v1/activity_log?username=${username}`));
    const events = log.data.map((e) => e.event);
    for (const e of ["password_reset_requested", "password_reset_started", "password_reset_completed"]) expect(events).toContain(e);
    // Leave /me first: with its cookies gone, its next query answers 401 and the page sends
    // itself to the login page, which would abort the navigation below.
    await page.goto("about:blank");
    await page.context().clearCookies();
    await page.goto(`/password-reset?token=${token}`);
    await expect(page.getByTestId("password-reset-invalid")).toBeVisible();
  });

  test("admin: add a user with enrollment enabled, the token dialog with its QR code", async ({ page }) => {
    const username = `enrui-${suffix()}`;
    await signInAdmin(page);
    await page.goto("/users");
    await page.getByTestId("add-user").click();
    const dialog = page.getByTestId("add-user-dialog");
    await dialog.getByTestId("add-user-username").fill(username);
    await dialog.getByTestId("add-user-first-name").fill("Uma");
    await dialog.getByTestId("add-user-last-name").fill("Ui");
    await dialog.getByTestId("add-user-email").fill(`${username}@example.com`);
    await dialog.getByTestId("add-user-enable-enrollment").click();
    await expect(dialog.getByTestId("add-user-password")).toHaveCount(0);
    await dialog.getByTestId("add-user-submit").click();
    const index = sink.messages.length;
    await page.getByTestId("enroll-token-send").click();
    await page.getByTestId("enroll-token-generate").click();
    const issued = page.getByTestId("enroll-token-issued");
    await expect(issued).toBeVisible();
    await expect(issued.getByTestId("enroll-token-qr")).toBeVisible();
    // The token as the page link carries it (the blocks' text also holds their labels).
    const token = /token=([A-Za-z0-9_-]{43})/.exec((await issued.getByTestId("enroll-token-link").textContent()) ?? "")?.[1] ?? "";
    expect(token).not.toBe("");
    await expect(issued.getByTestId("enroll-token-value")).toContainText(token);
    await page.screenshot({ path: "test-results/enroll-token-dialog.png" });
    const mail = await sink.next(index);
    expect(mail.to).toEqual([`${username}@example.com`]);
    expect(linkToken(mail.raw)).toBe(token);
    await page.getByTestId("enroll-token-done").click();
    await expect(issued).toHaveCount(0);
  });

  test("admin: enrollment settings with a live Markdown preview, saved", async ({ page }) => {
    await signInAdmin(page);
    await page.goto("/enrollment");
    const text = `# Welcome {{ first_name }}\n\nRead **the rules** ${suffix()}`;
    await page.getByTestId("enrollment-welcome-message").fill(text);
    await expect(page.getByTestId("enrollment-welcome-message-preview").locator("strong")).toHaveText("the rules");
    await page.getByTestId("enrollment-vpn-optional").click();
    await page.screenshot({ path: "test-results/enroll-settings.png", fullPage: true });
    await page.getByTestId("enrollment-save").click();
    await expect.poll(async () => (await admin.ok<{ enrollment_welcome_message: string }>(admin.get("/api/v1/settings"))).enrollment_welcome_message).toBe(text);
    const s = await admin.ok<{ enrollment_vpn_step_optional: boolean }>(admin.get("/api/v1/settings"));
    expect(s.enrollment_vpn_step_optional).toBe(false);
    await admin.ok(admin.patch("/api/v1/settings", { enrollment_vpn_step_optional: true, enrollment_welcome_message: null }));
  });

  test("an unknown token is refused on the first step", async ({ page }) => {
    await page.goto("/enroll?token=no-such-token");
    await page.getByTestId("enroll-start").click();
    await expect(page.getByText("invalid token")).toBeVisible();
    await expect(page.getByTestId("enroll-token-form")).toBeVisible();
  });
});
