/**
 * The error catalogue of the product (every message a person may see when something fails):
 * where each one is produced, and that it exists in English, Korean and Polish. The table names
 * the message key and the file that shows it; the test checks the key in all three catalogues
 * and that the file really refers to it (its namespace and its own name), so a message that is
 * renamed, dropped or no longer used fails here.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import en from "@/messages/en.json";
import ko from "@/messages/ko.json";
import pl from "@/messages/pl.json";

type Tree = { [key: string]: string | Tree };

/** [catalogue entry, message key, producing file, where it shows]. */
const CATALOGUE: [string, string, string, string][] = [
  ["generic error occurred", "mfa.errors.generic", "components/mfa/errors.ts", "any sign-in step failing for an unknown reason"],
  ["failed to get application version (also logged)", "shell.versionFailed", "components/shell/console-shell.tsx", "console frame, GET /info failing"],
  ["context is not secure", "mfa.copy.insecureContext", "components/mfa/copy-button.tsx", "copy buttons over plain http"],
  ["clipboard not accessible", "profile.authKeys.copyFailed", "components/profile/auth-keys.tsx", "copying a key when the browser refuses"],
  ["too many bad login attempts, try again in a few minutes", "login.errors.locked", "components/login/login-form.tsx", "POST /auth 429 (lockout)"],
  ["failed to read key (security key login, try again)", "mfa.errors.keyFailed", "components/mfa/errors.ts", "WebAuthn sign-in step"],
  ["code is invalid (TOTP/email)", "mfa.errors.codeInvalid", "components/mfa/errors.ts", "POST /auth/totp, /auth/email"],
  ["external OpenID login error with return to login", "openidCallback.title", "components/extid/callback-screen.tsx", "/auth/callback"],
  ["could not fetch user data", "shell.userLoadFailed", "components/shell/console-shell.tsx", "GET /me failing"],
  ["token generation failed", "networkDevices.cli.failed", "components/network-devices/cli-command.tsx", "POST /device/network/start_cli"],
  ["device config failed", "devices.list.configFailed", "components/devices/user-devices.tsx", "GET /network/{id}/device/{id}/config"],
  ["device modify failed", "devices.edit.failed", "components/devices/edit-device-dialog.tsx", "PUT /device/{id}"],
  ["device delete failed", "devices.list.deleteFailed", "components/devices/user-devices.tsx", "DELETE /device/{id}"],
  ["device add failed", "devices.add.failed", "components/devices/add-device.tsx", "POST /device/{username}"],
  ["standalone device create failed", "networkDevices.add.failed", "components/network-devices/add-network-device-dialog.tsx", "POST /device/network"],
  ["standalone device edit failed", "networkDevices.edit.failed", "components/network-devices/edit-network-device-dialog.tsx", "PUT /device/network/{id}"],
  ["standalone device delete failed", "networkDevices.list.deleteFailed", "components/network-devices/network-devices-page.tsx", "DELETE /device/network/{id}"],
  ["standalone device config failed", "networkDevices.list.configFailed", "components/network-devices/network-devices-page.tsx", "GET /device/network/{id}/config"],
  ["password change failed", "users.password.failed", "components/users/change-password-dialog.tsx", "PUT /user/{username}/password"],
  ["MFA disable failed", "mfa.settings.toasts.mfaOffFailed", "components/mfa/mfa-settings.tsx", "DELETE /auth/mfa"],
  ["enrollment start failed", "enrollToken.enrollFailed", "components/enrollment/token-dialog.tsx", "POST /user/{username}/start_enrollment"],
  ["desktop activation failed", "enrollToken.desktopFailed", "components/enrollment/token-dialog.tsx", "POST /user/{username}/start_desktop"],
  ["gateway status fetch failed", "gateways.list.checkFailed", "components/gateways/gateway-list.tsx", "GET /network/{id}/gateways"],
  ["gateway delete failed", "gateways.list.deleteFailed", "components/gateways/gateway-list.tsx", "DELETE /network/{id}/gateways/{gatewayId}"],
  ["network delete failed", "locations.edit.deleteFailed", "components/locations/edit-location.tsx", "DELETE /network/{id}"],
  ["provisioning failed", "provisioners.provision.failed", "components/provisioning/provisioners-page.tsx", "POST /worker/job"],
  ["worker status error", "provisioners.loadFailed", "components/provisioning/provisioners-page.tsx", "GET /worker"],
  ["key add failed (try again later)", "profile.authKeys.addFailed", "components/profile/auth-keys.tsx", "POST /user/{username}/auth_key"],
  ["API token add failed (try again later)", "profile.apiTokens.addFailed", "components/profile/api-tokens.tsx", "POST /user/{username}/api_token"],
  ["ACL change failed", "acl.rules.changeFailed", "components/acl/rules-tab.tsx", "PUT /acl/rule/{id}"],
  ["ACL apply failed", "acl.deploy.failed", "components/acl/deploy-dialog.tsx", "PUT /acl/rule/apply, /acl/alias/apply"],
  ["rule creation failed", "acl.rule.createFailed", "components/acl/rule-page.tsx", "POST /acl/rule"],
  ["alias delete failed", "acl.aliases.deleteFailed", "components/acl/aliases-tab.tsx", "DELETE /acl/alias/{id}"],
  ["alias apply failed", "acl.deploy.failed", "components/acl/deploy-dialog.tsx", "PUT /acl/alias/apply"],
  ["LDAP connection rejected", "settings.ldap.errors.bind_refused", "components/settings/ldap-tab.tsx", "GET /ldap/test"],
  ["SMTP test error", "settings.smtp.test.failed", "components/settings/smtp-settings.tsx", "POST /mail/test"],
  ["support email error", "support.sendFailed", "components/support/support-page.tsx", "POST /mail/support"],
  ["directory sync connection failed", "settings.openid.sync.testFailed", "components/extid/openid-tab.tsx", "GET /test_directory_sync"],
  ["no networks accessible", "devices.list.noLocations", "components/devices/user-devices.tsx", "a user's devices with no location open to them"],
  ["SMTP must be configured before email tokens or notifications can be used", "mfa.errors.smtpMissing", "components/mfa/errors.ts", "e-mail MFA, enrolment e-mails"],
  ["date input not valid", "validation.invalidDate", "lib/validation.ts", "date fields (activity filter, ACL expiry)"],
  ["Required (library message)", "validation.required", "lib/validation.ts", "every required field"],
  ["Invalid input (library message)", "validation.invalidType", "lib/validation.ts", "a value of the wrong type"],
];

const root = fileURLToPath(new URL("../", import.meta.url));

function lookup(tree: Tree, key: string): unknown {
  let t: unknown = tree;
  for (const part of key.split(".")) t = t && typeof t === "object" ? (t as Tree)[part] : undefined;
  return t;
}

describe("error catalogue", () => {
  it.each(CATALOGUE)("%s → %s in %s", (_entry, key, file) => {
    for (const [lang, tree] of Object.entries({ en, ko, pl } as Record<string, Tree>)) {
      const text = lookup(tree, key);
      expect(typeof text, `${key} in ${lang}`).toBe("string");
      expect((text as string).trim(), `${key} in ${lang}`).not.toBe("");
    }
    // Translated, not copied: the Korean and Polish texts differ from the English one.
    expect(lookup(ko as Tree, key)).not.toBe(lookup(en as Tree, key));
    expect(lookup(pl as Tree, key)).not.toBe(lookup(en as Tree, key));
    const source = readFileSync(`${root}${file}`, "utf8");
    const parts = key.split(".");
    const last = parts.at(-1)!;
    // The file names the message (t("x"), a key table, or V.x for validation keys) and its namespace.
    const namesIt = new RegExp(`["'\`.]${last}["'\`]|\\bV\\.${last}\\b|\\b${last}:`).test(source);
    expect(namesIt, `${file} does not refer to ${last}`).toBe(true);
    if (parts[0] !== "validation") expect(source, `${file} does not use the ${parts[0]} messages`).toContain(parts[0]);
  });

  it("covers every catalogue entry once", () => {
    expect(new Set(CATALOGUE.map(([e]) => e)).size).toBe(CATALOGUE.length);
  });
});
