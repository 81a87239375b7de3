/**
 * Multi-factor authentication end to end: a user turns on each second factor in My Profile
 * (authenticator app, security key through Chromium's virtual authenticator, e-mail codes read
 * from a local SMTP sink), signs out and signs in again with it; a recovery code signs in once;
 * with MFA required by policy a user without it is sent to the set-up first.
 */
import { randomBytes } from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { generate } from "otplib";
import { apiClient, ApiClient, message, pageApiStatus, signIn, signOut } from "./support";
import { codeOf, startSmtpSink, type SmtpSink } from "./smtp-sink";

const PASSWORD = "Mfa-Passw0rd!";
const TOTP_PERIOD = 30;

/** The TOTP code of a time step (as lib/mfa/totp.ts computes it). */
function totpCode(secret: string, step: number): Promise<string> {
  return generate({ secret, epoch: step * TOTP_PERIOD });
}
const currentStep = () => Math.floor(Date.now() / 1000 / TOTP_PERIOD);

/** A fresh ordinary user created by the admin. */
async function createUser(prefix: string): Promise<string> {
  const username = `${prefix}-${randomBytes(3).toString("hex")}`;
  const admin = await apiClient();
  try {
    await admin.ok(
      admin.post("/api/v1/user", {
        username,
        first_name: "Mfa",
        last_name: "Tester",
        email: `${username}@example.com`,
        password: PASSWORD,
      }),
      201,
    );
  } finally {
    await admin.dispose();
  }
  return username;
}

/** The recovery codes dialog: eight codes, closable only after the acknowledgement. */
async function saveRecoveryCodes(page: Page): Promise<string[]> {
  const dialog = page.getByTestId("recovery-codes-dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog.getByTestId("recovery-code")).toHaveCount(8);
  await expect(dialog.getByText(message("en", "mfa.recovery.onlyOnce"))).toBeVisible();
  const codes = (await dialog.getByTestId("recovery-code").allInnerTexts()).map((c) => c.replace(/^\d+\s*/, "").trim());
  await expect(dialog.getByTestId("recovery-done")).toBeDisabled();
  // Escape does not close it before the acknowledgement.
  await page.keyboard.press("Escape");
  await expect(dialog).toBeVisible();
  await dialog.getByTestId("recovery-saved").click();
  await dialog.getByTestId("recovery-done").click();
  await expect(dialog).toBeHidden();
  return codes;
}

async function expectSignedIn(page: Page) {
  await expect(page).toHaveURL(/\/me(?:[?#].*)?$/);
  await expect(page.getByTestId("app-shell")).toBeVisible();
  await expect(page.getByTestId("mfa-settings")).toBeVisible();
}

test("authenticator app: enable in My Profile, then sign in with a code", async ({ page }) => {
  const username = await createUser("mfa-totp");
  await signIn(page, username, PASSWORD);
  await expectSignedIn(page);
  await expect(page.getByTestId("mfa-status")).toHaveText(message("en", "mfa.settings.off"));

  await page.getByTestId("totp-enable").click();
  const dialog = page.getByTestId("totp-dialog");
  await expect(dialog.getByTestId("totp-qr")).toBeVisible();
  const secret = (await dialog.getByTestId("totp-secret").innerText()).replace(/\s+/g, "");
  expect(secret).toMatch(/^[A-Z2-7]{16,}$/);

  // A wrong code is refused on the field.
  const wrong = (await totpCode(secret, currentStep() + 10)) === "000000" ? "111111" : "000000";
  await dialog.getByTestId("totp-setup-code-input").fill(wrong);
  await expect(dialog.getByText(message("en", "mfa.errors.codeInvalid"))).toBeVisible();

  // Six digits submit on their own.
  await dialog.getByTestId("totp-setup-code-input").fill(await totpCode(secret, currentStep()));
  const codes = await saveRecoveryCodes(page);
  expect(codes).toHaveLength(8);
  await expect(page.getByTestId("mfa-totp")).toHaveAttribute("data-configured", "true");
  await expect(page.getByTestId("mfa-totp-default")).toBeVisible();
  await expect(page.getByTestId("mfa-status")).toHaveText(message("en", "mfa.settings.on"));

  await signOut(page);
  await expect(page).toHaveURL(/\/login/);
  await signIn(page, username, PASSWORD);
  const step = page.getByTestId("login-mfa");
  await expect(step).toHaveAttribute("data-method", "totp");
  await expect(step.getByTestId("mfa-switch-recovery")).toBeVisible();
  // The next time step: the step used to enable the app may not be used again (replay guard).
  await page.getByTestId("mfa-totp-input").fill(await totpCode(secret, currentStep() + 1));
  await expectSignedIn(page);
});

test("security key: register with the virtual authenticator, rename, then sign in with it", async ({ page }) => {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "usb",
      hasResidentKey: false,
      hasUserVerification: false,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });

  const username = await createUser("mfa-key");
  await signIn(page, username, PASSWORD);
  await expectSignedIn(page);

  await page.getByTestId("key-add").click();
  const add = page.getByTestId("add-key-dialog");
  await add.getByTestId("add-key-name").fill("Virtual key");
  await add.getByTestId("add-key-submit").click();
  await saveRecoveryCodes(page);
  await expect(page.getByTestId("key-item")).toHaveCount(1);
  await expect(page.getByTestId("key-item")).toContainText("Virtual key");
  await expect(page.getByTestId("mfa-webauthn-default")).toBeVisible();

  // The same authenticator again: the browser refuses it as already registered.
  await page.getByTestId("key-add").click();
  await add.getByTestId("add-key-name").fill("Same key");
  await add.getByTestId("add-key-submit").click();
  await expect(add.getByTestId("add-key-error")).toHaveText(message("en", "mfa.errors.keyDuplicate"));
  await page.keyboard.press("Escape");
  await expect(add).toBeHidden();

  await page.getByTestId("key-menu").click();
  await page.getByTestId("key-rename").click();
  const rename = page.getByTestId("rename-key-dialog");
  await rename.getByTestId("rename-key-name").fill("Desk key");
  await rename.getByTestId("rename-key-submit").click();
  await expect(rename).toBeHidden();
  await expect(page.getByTestId("key-item")).toContainText("Desk key");

  await signOut(page);
  await signIn(page, username, PASSWORD);
  await expect(page.getByTestId("login-mfa")).toHaveAttribute("data-method", "webauthn");
  await page.getByTestId("mfa-webauthn-submit").click();
  await expectSignedIn(page);
});

test.describe("e-mail codes", () => {
  let sink: SmtpSink;
  let admin: ApiClient;

  test.beforeAll(async () => {
    sink = await startSmtpSink();
    admin = await apiClient();
    await admin.ok(
      admin.patch("/api/v1/settings", {
        smtp_server: "127.0.0.1",
        smtp_port: sink.port,
        smtp_encryption: "None",
        smtp_sender: "console@example.com",
      }),
    );
  });

  test.afterAll(async () => {
    await admin.patch("/api/v1/settings", { smtp_server: null, smtp_port: null, smtp_sender: null });
    await admin.dispose();
    await sink.close();
  });

  test("enable e-mail codes with a code from the inbox, then sign in with another", async ({ page }) => {
    const username = await createUser("mfa-mail");
    const address = `${username}@example.com`;
    await signIn(page, username, PASSWORD);
    await expectSignedIn(page);

    await page.getByTestId("email-enable").click();
    const dialog = page.getByTestId("email-dialog");
    await expect(dialog).toContainText(address);
    let index = sink.messages.length;
    await dialog.getByTestId("email-send").click();
    const setupMail = await sink.next(index);
    expect(setupMail.to).toEqual([address]);
    // Asking again at once is held back for 30 seconds.
    await expect(dialog.getByTestId("email-resend")).toBeDisabled();
    await dialog.getByTestId("email-setup-code-input").fill(codeOf(setupMail));
    await saveRecoveryCodes(page);
    await expect(page.getByTestId("mfa-email")).toHaveAttribute("data-configured", "true");
    await expect(page.getByTestId("mfa-email-default")).toBeVisible();

    await signOut(page);
    index = sink.messages.length;
    await signIn(page, username, PASSWORD);
    await expect(page.getByTestId("login-mfa")).toHaveAttribute("data-method", "email");
    // Entering the step sends the login code.
    const loginMail = await sink.next(index);
    expect(loginMail.to).toEqual([address]);
    await expect(page.getByTestId("mfa-email-sent")).toBeVisible();
    await expect(page.getByTestId("email-resend")).toBeDisabled();
    await page.getByTestId("mfa-email-input").fill(codeOf(loginMail));
    await expectSignedIn(page);
  });
});

test("a recovery code signs in once", async ({ page }) => {
  const username = await createUser("mfa-recovery");
  // Turn the authenticator app on through the API as the user; keep the recovery codes.
  const user = await ApiClient.as(username, PASSWORD);
  let codes: string[];
  try {
    const { secret } = await user.ok<{ secret: string }>(user.post("/api/v1/auth/totp/init"));
    ({ codes } = await user.ok<{ codes: string[] }>(user.post("/api/v1/auth/totp", { code: await totpCode(secret, currentStep()) })));
  } finally {
    await user.dispose();
  }
  expect(codes).toHaveLength(8);

  await signIn(page, username, PASSWORD);
  await expect(page.getByTestId("login-mfa")).toHaveAttribute("data-method", "totp");
  await page.getByTestId("mfa-switch-recovery").click();
  await expect(page.getByTestId("login-mfa")).toHaveAttribute("data-method", "recovery");
  await page.getByTestId("mfa-recovery-input").fill(codes[0].toLowerCase());
  await page.getByTestId("mfa-recovery-submit").click();
  await expectSignedIn(page);

  await signOut(page);
  await signIn(page, username, PASSWORD);
  await page.getByTestId("mfa-switch-recovery").click();
  await page.getByTestId("mfa-recovery-input").fill(codes[0]);
  await page.getByTestId("mfa-recovery-submit").click();
  await expect(page.getByText(message("en", "mfa.errors.recoveryInvalid"))).toBeVisible();
  await expect(page).toHaveURL(/\/login/);

  // Another one still works.
  await page.getByTestId("mfa-recovery-input").fill(codes[1]);
  await page.getByTestId("mfa-recovery-submit").click();
  await expectSignedIn(page);
});

test("MFA required by policy: a user without MFA sets it up first, then continues", async ({ page }) => {
  // The policy is switched by a second admin who has MFA (an admin without it could not switch it back).
  const policyAdminName = await createUser("mfa-policy");
  const admin = await apiClient();
  try {
    await admin.ok(admin.post("/api/v1/group/admin", { username: policyAdminName }));
  } finally {
    await admin.dispose();
  }
  const policyAdmin = await ApiClient.as(policyAdminName, PASSWORD);
  const { secret: adminSecret } = await policyAdmin.ok<{ secret: string }>(policyAdmin.post("/api/v1/auth/totp/init"));
  await policyAdmin.ok(policyAdmin.post("/api/v1/auth/totp", { code: await totpCode(adminSecret, currentStep()) }));

  const username = await createUser("mfa-forced");
  await policyAdmin.ok(policyAdmin.patch("/api/v1/settings", { require_mfa: true }));
  try {
    await signIn(page, username, PASSWORD);
    await expect(page).toHaveURL(/\/mfa-setup(?:[?#].*)?$/);
    await expect(page.getByTestId("mfa-setup")).toBeVisible();
    // Meanwhile the API refuses everything but the MFA set-up.
    expect(await pageApiStatus(page, `/api/v1/user/${username}`)).toBe(403);
    // The console leads back to the set-up.
    await page.goto("/me");
    await expect(page).toHaveURL(/\/mfa-setup(?:[?#].*)?$/);
    await page.goto("/login");
    await expect(page).toHaveURL(/\/mfa-setup(?:[?#].*)?$/);

    await page.getByTestId("setup-totp").click();
    const dialog = page.getByTestId("totp-dialog");
    const secret = (await dialog.getByTestId("totp-secret").innerText()).replace(/\s+/g, "");
    await dialog.getByTestId("totp-setup-code-input").fill(await totpCode(secret, currentStep()));
    await saveRecoveryCodes(page);
    await expectSignedIn(page);
    expect(await pageApiStatus(page, `/api/v1/user/${username}`)).toBe(200);
    await expect(page.getByTestId("mfa-totp")).toHaveAttribute("data-configured", "true");
  } finally {
    await policyAdmin.ok(policyAdmin.patch("/api/v1/settings", { require_mfa: false }));
    await policyAdmin.dispose();
  }
});
