/**
 * "Sudo mode" in the browser: when the session's last proof of identity is older than 10
 * minutes (made so here by moving sessions.reauth_at back in the run's database), turning an
 * authenticator app off answers 403 reauth_required; the client opens the "Confirm it is you"
 * dialog, sends the password to POST /auth/reauth and retries the change. Cancelling leaves
 * everything as it was.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { generate } from "otplib";
import pg from "pg";
import { apiClient, message, readState, signIn } from "./support";

const PASSWORD = "Reauth-Passw0rd!";
const currentStep = () => Math.floor(Date.now() / 1000 / 30);

async function createUser(): Promise<string> {
  const username = `reauth-${randomBytes(3).toString("hex")}`;
  const admin = await apiClient();
  try {
    await admin.ok(
      admin.post("/api/v1/user", { username, first_name: "Re", last_name: "Auth", email: `${username}@example.com`, password: PASSWORD }),
      201,
    );
  } finally {
    await admin.dispose();
  }
  return username;
}

/** Run SQL on the run's embedded database (its password is in the data directory's secrets.json). */
async function sql(text: string, values: unknown[]): Promise<void> {
  const state = readState();
  if (state.dbPort === null) throw new Error("the e2e server runs no embedded PostgreSQL");
  const secrets = JSON.parse(readFileSync(join(state.dataDir, "secrets.json"), "utf8")) as { embeddedDbPassword: string };
  const client = new pg.Client({
    connectionString: `postgres://defguard:${encodeURIComponent(secrets.embeddedDbPassword)}@127.0.0.1:${state.dbPort}/defguard`,
  });
  await client.connect();
  try {
    await client.query(text, values);
  } finally {
    await client.end();
  }
}

/** Make every session of the user look as if its last proof was 11 minutes ago. */
const makeStale = (username: string) =>
  sql("update sessions set reauth_at = now() - interval '11 minutes' where user_id = (select id from users where username = $1)", [username]);

/** Turn the authenticator app on through the API with the page's own session. */
async function enableTotpViaApi(page: Page): Promise<void> {
  const xsrf = (await page.context().cookies()).find((c) => c.name === "XSRF-TOKEN")?.value ?? "";
  const headers = { "x-xsrf-token": xsrf };
  const init = await page.request.post("/api/v1/auth/totp/init", { headers });
  expect(init.status(), await init.text()).toBe(200);
  const { secret } = (await init.json()) as { secret: string };
  const code = await generate({ secret, epoch: currentStep() * 30 });
  const res = await page.request.post("/api/v1/auth/totp", { headers, data: { code } });
  expect(res.status(), await res.text()).toBe(200);
}

async function askToDisableTotp(page: Page) {
  await page.getByTestId("totp-disable").click();
  const confirm = page.getByRole("alertdialog");
  await confirm.getByRole("button", { name: message("en", "mfa.settings.disable") }).click();
}

test("a stale session is asked for the password, then the change goes through", async ({ page }) => {
  const username = await createUser();
  await signIn(page, username, PASSWORD);
  await expect(page).toHaveURL(/\/me(?:[?#].*)?$/);
  await enableTotpViaApi(page);
  await page.reload();
  await expect(page.getByTestId("mfa-totp")).toHaveAttribute("data-configured", "true");

  await makeStale(username);
  await askToDisableTotp(page);
  const dialog = page.getByTestId("reauth-dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog.getByText(message("en", "auth.reauth.title"), { exact: true })).toBeVisible();

  // Empty, then wrong: said on the field, the dialog stays.
  await dialog.getByTestId("reauth-submit").click();
  await expect(dialog.getByText(message("en", "auth.reauth.passwordRequired"), { exact: true })).toBeVisible();
  await dialog.getByTestId("reauth-password").fill("Not-the-passw0rd");
  await dialog.getByTestId("reauth-submit").click();
  await expect(dialog.getByText(message("en", "auth.reauth.wrongPassword"), { exact: true })).toBeVisible();
  await expect(page.getByTestId("mfa-totp")).toHaveAttribute("data-configured", "true");

  await dialog.getByTestId("reauth-password").fill(PASSWORD);
  await dialog.getByTestId("reauth-submit").click();
  await expect(dialog).toBeHidden();
  // The refused DELETE was sent again and succeeded.
  await expect(page.getByTestId("mfa-totp")).toHaveAttribute("data-configured", "false");
  await expect(page.getByRole("alertdialog")).toBeHidden();
});

test("cancelling the dialog leaves the authenticator app on", async ({ page }) => {
  const username = await createUser();
  await signIn(page, username, PASSWORD);
  await expect(page).toHaveURL(/\/me(?:[?#].*)?$/);
  await enableTotpViaApi(page);
  await page.reload();
  await expect(page.getByTestId("mfa-totp")).toHaveAttribute("data-configured", "true");

  await makeStale(username);
  await askToDisableTotp(page);
  const dialog = page.getByTestId("reauth-dialog");
  await expect(dialog).toBeVisible();
  await dialog.getByTestId("reauth-cancel").click();
  await expect(dialog).toBeHidden();
  await page.reload();
  await expect(page.getByTestId("mfa-totp")).toHaveAttribute("data-configured", "true");
});
