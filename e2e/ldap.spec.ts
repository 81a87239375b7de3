/**
 * Settings → LDAP in Chromium against a real slapd (tests/slapd.ts, loopback port, throw-away
 * database): the form is filled and saved, the bind password is write-only (never shown back,
 * not in the page nor in the settings API), "Test connection" shows the connect / bind / search
 * steps, and a wrong bind password shows the error in words with the step that failed.
 */
import { expect, test } from "@playwright/test";
import { apiClient, signInAdmin } from "./support";
import { ADMIN_DN, ADMIN_PASSWORD, GROUPS_DN, groupLdif, slapdMissing, startSlapd, USERS_DN, userLdif, type Slapd } from "../tests/slapd";

const missing = slapdMissing();
if (missing) console.log(`[e2e/ldap.spec.ts] skipped: ${missing}`);

let slapd: Slapd | undefined;

test.beforeAll(async () => {
  if (missing) return;
  const ldif = [
    userLdif({ uid: "lena", first: "Lena", last: "Ldap", mail: "lena@example.org", password: "Lena-pass1!" }),
    userLdif({ uid: "omar", first: "Omar", last: "Ldap", mail: "omar@example.org", password: "Omar-pass1!" }),
    groupLdif("crew", [`cn=lena,${USERS_DN}`]),
  ].join("\n");
  slapd = await startSlapd({ ldif });
});

test.afterAll(async () => {
  // Other specs sign in without LDAP: switch it off and forget the server.
  const admin = await apiClient();
  await admin.patch("/api/v1/settings", { ldap_enabled: false, ldap_sync_enabled: false, ldap_url: null, ldap_bind_password: null });
  await admin.dispose();
  await slapd?.stop();
});

test("an admin sets up LDAP: write-only bind password, connection test steps, a wrong password in words", async ({ page }) => {
  test.skip(Boolean(missing), missing ?? "");
  const s = slapd!;
  await signInAdmin(page);
  await page.goto("/settings?tab=ldap");
  await expect(page.getByTestId("ldap-form")).toBeVisible({ timeout: 30_000 });

  const fill = async (field: string, value: string) => page.getByTestId(`setting-${field}`).fill(value);
  await page.getByTestId("setting-ldap_enabled").click();
  await fill("ldap_url", s.url);
  await fill("ldap_bind_username", ADMIN_DN);
  await fill("ldap_bind_password", ADMIN_PASSWORD);
  await fill("ldap_user_search_base", USERS_DN);
  await fill("ldap_group_search_base", GROUPS_DN);
  await fill("ldap_user_obj_class", "inetOrgPerson");
  await fill("ldap_user_auxiliary_obj_classes", "");
  await fill("ldap_username_attr", "cn");
  await fill("ldap_user_rdn_attr", "");
  await fill("ldap_member_attr", "memberOf");
  await fill("ldap_group_obj_class", "groupOfUniqueNames");
  await fill("ldap_groupname_attr", "cn");
  await fill("ldap_group_member_attr", "uniqueMember");
  await page.getByTestId("ldap-save").click();
  await expect(page.locator('[data-testid="toast"][data-type="success"]')).toBeVisible();

  // Write-only: after a reload the field is empty and only says a password is stored.
  await page.reload();
  const password = page.getByTestId("setting-ldap_bind_password");
  await expect(password).toHaveValue("", { timeout: 30_000 });
  await expect(password).toHaveAttribute("placeholder", "Stored (leave empty to keep)");
  await expect(page.getByTestId("setting-ldap_url")).toHaveValue(s.url);
  expect(await page.content()).not.toContain(ADMIN_PASSWORD);
  const api = await page.request.get("/api/v1/settings");
  expect(api.status()).toBe(200);
  const body = await api.text();
  expect(body).not.toContain(ADMIN_PASSWORD);
  expect(JSON.parse(body)).toMatchObject({ ldap_bind_password_set: true, ldap_url: s.url });

  // The connection test: three steps, all passed, with what the search found.
  await page.getByTestId("ldap-test").click();
  const steps = page.getByTestId("ldap-test-steps");
  await expect(steps).toBeVisible({ timeout: 30_000 });
  for (const step of ["connect", "bind", "search"]) await expect(page.getByTestId(`ldap-step-${step}`)).toHaveAttribute("data-ok", "true");
  await expect(page.getByTestId("ldap-step-connect")).toHaveText("Server reached");
  await expect(page.getByTestId("ldap-step-bind")).toHaveText("Bind accepted");
  await expect(page.getByTestId("ldap-step-search")).toHaveText(/Users found\s*2 users, 1 groups/);
  await expect(page.getByTestId("ldap-error")).toHaveCount(0);
  await page.screenshot({ path: "test-results/ldap-settings-ok.png", fullPage: true });

  // A wrong bind password: saved, then the test says in words that the bind was refused.
  await password.fill("not-the-password");
  await page.getByTestId("ldap-save").click();
  await expect(page.locator('[data-testid="toast"][data-type="success"]').last()).toBeVisible();
  await page.getByTestId("ldap-test").click();
  const error = page.getByTestId("ldap-error");
  await expect(error).toBeVisible({ timeout: 30_000 });
  await expect(error).toContainText("The bind was refused");
  await expect(error).toContainText(/refused the bind: wrong bind DN or password/);
  await expect(page.getByTestId("ldap-step-connect")).toHaveAttribute("data-ok", "true");
  await expect(page.getByTestId("ldap-step-bind")).toHaveAttribute("data-ok", "false");
  await expect(page.getByTestId("ldap-step-search")).toHaveAttribute("data-ok", "false");
  expect(await page.content()).not.toContain("not-the-password");
  await page.screenshot({ path: "test-results/ldap-settings-bind-refused.png", fullPage: true });
});
