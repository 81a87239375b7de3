/**
 * Access Control end to end: the admin adds an alias, adds a rule through the rule page's pickers
 * (location, user, alias, ports, protocol), sees it pending, deploys it with the impact preview
 * (the user's device gains access), sees it deployed, edits it (a pending "modified" change next to
 * the deployed rule), discards that change, is refused when deleting the alias the rule uses (with
 * the server's reason), and asks the "Check access" panel about the user.
 */
import { generateKeyPairSync } from "node:crypto";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { apiClient, createLocation, message, signInAdmin, suffix } from "./support";

function publicKey(): string {
  const { publicKey } = generateKeyPairSync("x25519");
  return publicKey.export({ type: "spki", format: "der" }).subarray(-32).toString("base64");
}

/** Open a MultiSelect / Combobox, search, pick the option with this text, close the list. */
async function pick(page: Page, control: Locator, text: string) {
  const trigger = (await control.getAttribute("aria-haspopup")) ? control : control.locator("[aria-haspopup]").first();
  await trigger.click();
  const search = page.locator('[role="combobox"][aria-autocomplete="list"]');
  await search.fill(text);
  await page.getByRole("option").filter({ hasText: text }).first().click();
  await page.keyboard.press("Escape");
}

const toast = (page: Page, type: "success" | "error", text: string) => page.locator(`[data-testid="toast"][data-type="${type}"]`).filter({ hasText: text });
const fill = (template: string, values: Record<string, string>) => template.replace(/\{(\w+)\}/g, (_, k: string) => values[k] ?? `{${k}}`);

test("alias, rule with pickers, pending → deploy with impact → applied, edit → modified → discard, alias in use refused, check access", async ({ page }) => {
  const s = suffix();
  const api = await apiClient();
  const username = `acl-${s}`;
  const locationName = `acl-loc-${s}`;
  const aliasName = `web-${s}`;
  const ruleName = `web access ${s}`;
  const location = await createLocation(api, { name: locationName, acl_enabled: true, acl_default_allow: false });
  await api.ok(api.post("/api/v1/user", { username, first_name: "Acl", last_name: "E2e", email: `${username}@example.com`, password: "Passw0rd!x" }), 201);
  await api.ok(api.post(`/api/v1/device/${username}`, { name: `laptop-${s}`, wireguard_pubkey: publicKey() }), 201);

  await signInAdmin(page);
  // Access Control is in the admin navigation.
  await page.getByTestId("nav-item-acl").click();
  await expect(page).toHaveURL(/\/acl$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(message("en", "acl.title"));

  // 1. An alias, through the Aliases tab.
  await page.getByTestId("acl-tab-aliases").click();
  await expect(page).toHaveURL(/tab=aliases/);
  await page.getByTestId("add-alias").click();
  const aliasDialog = page.getByTestId("alias-dialog");
  await aliasDialog.getByTestId("alias-name").fill(aliasName);
  // A bad address is refused on its field, nothing sent.
  await aliasDialog.getByTestId("alias-destination").fill("192.0.2.300");
  await aliasDialog.getByTestId("alias-submit").click();
  await expect(aliasDialog.getByTestId("alias-destination")).toHaveAttribute("aria-invalid", "true");
  await aliasDialog.getByTestId("alias-destination").fill("192.0.2.10");
  await aliasDialog.getByTestId("alias-ports").fill("443");
  await aliasDialog.getByTestId("alias-protocols-tcp").click();
  await aliasDialog.getByTestId("alias-submit").click();
  await expect(aliasDialog).toHaveCount(0);
  const aliasRow = page.getByTestId("aliases-deployed").locator(`[data-testid="alias-row"][data-alias="${aliasName}"]`);
  await expect(aliasRow).toBeVisible();
  await expect(aliasRow.getByTestId("alias-state")).toHaveAttribute("data-state", "applied");
  await expect(aliasRow).toContainText("192.0.2.10");

  // 2. A rule through the rule page's pickers.
  await page.getByTestId("acl-tab-rules").click();
  await page.getByTestId("add-rule").click();
  await expect(page).toHaveURL(/\/acl\/rules\/new$/);
  const form = page.getByTestId("rule-form");
  // Nothing allowed yet: refused on the allowed users field.
  await form.getByTestId("rule-name").fill(ruleName);
  await form.getByTestId("rule-submit").click();
  await expect(form.getByTestId("rule-allowed")).toContainText(message("en", "validation.aclNoAllowed"));
  await expect(page).toHaveURL(/\/acl\/rules\/new$/);
  await pick(page, form.getByTestId("rule-networks"), locationName);
  await pick(page, form.getByTestId("rule-allowed-users"), username);
  await pick(page, form.getByTestId("rule-aliases"), aliasName);
  await form.getByTestId("rule-destination").fill("198.51.100.7");
  await form.getByTestId("rule-ports").fill("443");
  await form.getByTestId("rule-protocols-tcp").click();
  await expect(form.getByTestId("rule-allowed")).not.toContainText(message("en", "validation.aclNoAllowed"));
  await form.getByTestId("rule-submit").click();
  await expect(page).toHaveURL(/\/acl$/);
  await expect(toast(page, "success", fill(message("en", "acl.rule.created"), { name: ruleName }))).toBeVisible();

  // 3. Pending, as "new".
  const pendingRow = page.getByTestId("rules-pending").locator(`[data-testid="rule-row"][data-rule="${ruleName}"]`);
  await expect(pendingRow).toBeVisible();
  await expect(pendingRow.getByTestId("rule-state")).toHaveAttribute("data-state", "new");
  await expect(pendingRow).toContainText(aliasName);
  const rules = await api.ok<{ id: number; name: string; state: string; allowed_users: number[]; networks: number[]; aliases: number[] }[]>(api.get("/api/v1/acl/rule"));
  const created = rules.find((r) => r.name === ruleName)!;
  expect(created.state.toLowerCase()).toBe("new");
  expect(created.networks).toEqual([location.id]);
  expect(created.allowed_users).toHaveLength(1);
  expect(created.aliases).toHaveLength(1);

  // 4. Deploy the selected change: the preview shows the user's device gaining access here.
  await pendingRow.getByTestId("rule-select").click();
  await expect(page.getByTestId("rules-deploy")).toHaveText(message("en", "acl.rules.deploySelected").replace("{count, number}", "1"));
  await page.getByTestId("rules-deploy").click();
  const deploy = page.getByTestId("deploy-dialog");
  await expect(deploy).toBeVisible();
  const impact = deploy.locator(`[data-testid="impact-location"][data-location="${locationName}"]`);
  await expect(impact).toBeVisible();
  await expect(impact.getByTestId("impact-gained")).not.toHaveAttribute("data-count", "0");
  // The destination alias and the rule's own address each open 443/TCP for the user's device.
  const gains = impact.locator('[data-testid="impact-pair"][data-change="gain"]');
  await expect(gains.filter({ hasText: "192.0.2.10" }).first()).toContainText(`laptop-${s}`);
  await expect(gains.filter({ hasText: "198.51.100.7" }).first()).toContainText("443");
  await expect(impact.locator('[data-testid="impact-pair"][data-change="loss"]')).toHaveCount(0);
  await deploy.getByTestId("deploy-confirm").click();
  await expect(deploy).toHaveCount(0);

  // 5. Deployed, applied.
  const deployedRow = page.getByTestId("rules-deployed").locator(`[data-testid="rule-row"][data-rule="${ruleName}"]`);
  await expect(deployedRow).toBeVisible();
  await expect(deployedRow.getByTestId("rule-state")).toHaveAttribute("data-state", "applied");
  await expect(pendingRow).toHaveCount(0);
  await expect(page.getByTestId("rules-deploy")).toBeDisabled();

  // 5b. Filters (kept in the address): state, alias, location narrow the list; clearing restores it.
  const filterBy = async (param: string, option: string) => {
    await page.getByTestId(`rules-filter-${param}`).click();
    await page.getByRole("option", { name: option, exact: true }).click();
  };
  await filterBy("state", message("en", "acl.state.expired"));
  await expect(deployedRow).toHaveCount(0);
  await expect(page).toHaveURL(/[?&]state=expired/);
  await filterBy("state", message("en", "acl.state.applied"));
  await expect(deployedRow).toBeVisible();
  await filterBy("alias", aliasName);
  await filterBy("location", locationName);
  await expect(deployedRow).toBeVisible();
  await page.reload();
  await expect(deployedRow).toBeVisible();
  await expect(page.getByTestId("rules-filter-state")).toContainText(message("en", "acl.state.applied"));
  await page.getByTestId("rules-filters-clear").click();
  await expect(page).not.toHaveURL(/[?&](state|alias|location)=/);

  // 6. Edit the deployed rule: a pending "modified" change appears, the deployed rule stays.
  await page.getByTestId(`rule-actions-${ruleName}`).click();
  await page.getByTestId("rule-action-edit").click();
  await expect(page).toHaveURL(new RegExp(`/acl/rules/${created.id}$`));
  await expect(form.getByTestId("rule-name")).toHaveValue(ruleName);
  await expect(form.getByTestId("rule-ports")).toHaveValue("443");
  await form.getByTestId("rule-ports").fill("443, 8443");
  await form.getByTestId("rule-submit").click();
  await expect(page).toHaveURL(/\/acl$/);
  await expect(pendingRow.getByTestId("rule-state")).toHaveAttribute("data-state", "modified");
  await expect(deployedRow.getByTestId("rule-state")).toHaveAttribute("data-state", "applied");
  await expect(deployedRow).toContainText(message("en", "acl.rules.hasPendingChange"));

  // 7. Discard the change: nothing pending, the deployed rule unchanged.
  await page.getByTestId("rules-pending").getByTestId(`rule-actions-${ruleName}`).click();
  await page.getByTestId("rule-action-discard").click();
  const confirm = page.getByRole("alertdialog");
  await confirm.getByRole("button", { name: message("en", "acl.rules.actions.discard") }).click();
  await expect(pendingRow).toHaveCount(0);
  await expect(deployedRow).toBeVisible();
  await expect(deployedRow).not.toContainText(message("en", "acl.rules.hasPendingChange"));
  const after = await api.ok<{ name: string; ports: string; state: string }[]>(api.get("/api/v1/acl/rule"));
  expect(after.filter((r) => r.name === ruleName).map((r) => [r.state.toLowerCase(), r.ports])).toEqual([["applied", "443"]]);

  // 8. Deleting the alias the rule uses is refused, with the server's reason.
  await page.getByTestId("acl-tab-aliases").click();
  await expect(aliasRow.getByText(ruleName)).toBeVisible();
  await page.getByTestId(`alias-actions-${aliasName}`).click();
  await page.getByTestId("alias-action-delete").click();
  await expect(confirm).toContainText(ruleName);
  await confirm.getByRole("button", { name: message("en", "acl.aliases.actions.delete") }).click();
  const refused = toast(page, "error", fill(message("en", "acl.aliases.deleteFailed"), { name: aliasName }));
  await expect(refused).toBeVisible();
  await expect(refused).toContainText(/is used by rule/);
  await page.keyboard.press("Escape");
  await expect(aliasRow).toBeVisible();
  expect((await api.get("/api/v1/acl/alias")).ok()).toBe(true);

  // 9. Check access: the user reaches 192.0.2.10:443/TCP through the rule; port 22 is blocked.
  await page.getByTestId("acl-tab-rules").click();
  const check = page.getByTestId("acl-check");
  await check.getByTestId("check-location").click();
  await page.getByRole("option", { name: locationName }).click();
  await pick(page, check.getByTestId("check-user"), username);
  await check.getByTestId("check-destination").fill("192.0.2.10");
  await check.getByTestId("check-port").fill("443");
  await check.getByTestId("check-submit").click();
  const result = check.getByTestId("check-result");
  await expect(result).toHaveAttribute("data-allowed", "true");
  await expect(result.getByTestId("check-rule")).toHaveText(ruleName);
  // The reason in the console's language, from the answer's reason_code.
  await expect(result.getByTestId("check-reason")).toHaveAttribute("data-reason", "rule_allow");
  await expect(result.getByTestId("check-reason")).toContainText(ruleName);
  await check.getByTestId("check-port").fill("22");
  await check.getByTestId("check-submit").click();
  await expect(result).toHaveAttribute("data-allowed", "false");
  await expect(result.getByTestId("check-reason")).toHaveAttribute("data-reason", /^(rule_deny|default_deny)$/);
  await expect(result.getByTestId("check-reason")).not.toBeEmpty();

  await api.dispose();
});

test("Edit Location says what the gateway does for each access control setting", async ({ page }) => {
  const api = await apiClient();
  const location = await createLocation(api, { name: `acl-effect-${suffix()}`, acl_enabled: false, acl_default_allow: false });
  await signInAdmin(page);
  await page.goto(`/locations/${location.id}/edit`);
  const effect = page.getByTestId("location-acl-effect");
  await expect(effect).toHaveAttribute("data-effect", "off");
  await expect(effect).toContainText(message("en", "locations.form.aclEffect.off"));
  await expect(page.getByTestId("location-acl-default-allow")).toBeDisabled();
  await page.getByTestId("location-acl").click();
  await expect(effect).toHaveAttribute("data-effect", "deny");
  await expect(effect).toContainText(message("en", "locations.form.aclEffect.deny"));
  await page.getByTestId("location-acl-default-allow").click();
  await expect(effect).toHaveAttribute("data-effect", "allow");
  await expect(effect).toContainText(message("en", "locations.form.aclEffect.allow"));
  await page.getByTestId("location-submit").click();
  await expect.poll(async () => {
    const l = await api.ok<{ acl_enabled: boolean; acl_default_allow: boolean }>(api.get(`/api/v1/network/${location.id}`));
    return [l.acl_enabled, l.acl_default_allow];
  }).toEqual([true, true]);
  await api.dispose();
});
