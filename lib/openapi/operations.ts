import type { ZodType } from "zod";
import type { Access } from "../http/route";
import { loginSchema, reauthSchema } from "../auth/schema";
import {
  changeOwnPasswordSchema,
  createUserSchema,
  listUsersQuerySchema,
  resetPasswordSchema,
  setPasswordSchema,
  updateUserSchema,
  usernameAvailableSchema,
} from "../users/schema";
import { addMemberSchema, groupSchema, groupsAssignSchema, groupUpdateSchema } from "../groups/schema";
import { activityQuerySchema } from "../activity/schema";
import { logStreamSchema, webhookSchema, webhookStateSchema } from "../webhooks/schema";
import { testMailSchema } from "../mail/schema";
import { enterpriseSettingsPatchSchema, logoUploadSchema, settingsPatchSchema } from "../settings/schema";
import { statsQuerySchema } from "../stats/schema";
import { syncSettingsSchema } from "../gateways/schema";
import { importSchema, locationSchema, mapDevicesSchema } from "../locations/schema";
import { deviceSchema, networkDeviceCliSchema, networkDeviceSchema, networkDeviceUpdateSchema, validateIpsSchema } from "../devices/schema";
import {
  activateUserSchema,
  enrollmentCreateDeviceSchema,
  enrollmentStartSchema,
  networkInfoSchema,
  passwordResetRequestSchema,
  passwordResetResetSchema,
  passwordResetStartSchema,
  pollSchema,
  registerMfaFinishSchema,
  registerMfaStartSchema,
  startUserEnrollmentSchema,
  welcomeTestSchema,
  registerMobileSchema,
} from "../enrollment/schema";
import { clientMfaFinishSchema, clientMfaStartSchema } from "../clientmfa/schema";
import { openidClientSchema, openidClientStateSchema } from "../oidc/schema";
import { staleAccessQuery } from "../reports/schema";
import { callbackSchema, providerSchema } from "../extid/schema";
import { aclAliasSchema, aclCheckQuery, aclImpactQuery, aclRuleSchema, applyAliasesSchema, applyRulesSchema } from "../acl/schema";
import { apiTokenCreateSchema, keyRenameSchema } from "../apitokens/schema";
import { authKeyCreateSchema, authorizedKeysQuerySchema } from "../authkeys/schema";
import { workerJobSchema } from "../provisioning/schema";
import { codeSchema, enableMfaSchema, recoveryCodeSchema, renameSchema, webauthnAssertionSchema, webauthnFinishSchema } from "../mfa/schema";
import { deviceBulkSchema, userBulkSchema } from "../bulk/schema";

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface Operation {
  method: Method;
  /** Path under /api/v1 with {param} placeholders, matching the app/api/v1 folder names. */
  path: string;
  summary: string;
  tag: string;
  access: Access;
  body?: ZodType;
  query?: ZodType;
  /** Main success status and a short description of the answer. */
  ok?: { status: number; description: string };
  /**
   * A static path that is also a value of a dynamic one (GET /user/bulk is GET /user/{username}
   * for the user named "bulk"): served by that path's handler with the parameter fixed
   * (`withParams` in lib/http/route.ts). The matrix test checks the handler carries the aliased
   * row's access level; the callers are checked on the aliased row.
   */
  aliasOf?: string;
  /** The catch-all for unknown paths: checked like any route, left out of the OpenAPI paths. */
  catchAll?: true;
  /**
   * A user-level route still open to a user without MFA while the instance requires MFA (the
   * route's `allowWithoutMfa` option): the MFA setup steps and GET /me.
   */
  withoutMfa?: true;
  /**
   * An enterprise feature behind the licence gate: 403 {msg, code: "license_required"} once the
   * free tier is exceeded without a valid licence (docs/licence.md). The route passes
   * `enterprise: true` to route(); the matrix test checks the two agree.
   */
  enterprise?: true;
}

/**
 * Every /api/v1 operation: the one route declaration. `GET /api-docs` builds the OpenAPI
 * document from it, and tests/authz-matrix.test.ts checks it against the route files (every
 * exported handler has exactly one row, with the handler's access level and `withoutMfa` flag)
 * and calls every row as anonymous, user, other user, admin and MFA-pending admin.
 *
 * Adding a route: the route file, one row here —
 *   { method: "GET", path: "/thing/{id}", tag: "things", access: "admin", summary: "…",
 *     query?: zodSchema, body?: zodSchema, ok?: { status: 201, description: "…" }, withoutMfa?: true }
 * (`path` under /api/v1, `{param}` for a `[param]` folder) — and its own tests. A new path
 * parameter name also needs a value in PARAM_VALUES of the matrix test.
 */
export const OPERATIONS: Operation[] = [
  { method: "GET", path: "/health", tag: "platform", access: "public", summary: "Liveness: 200 when the database answers, 503 when not" },
  { method: "GET", path: "/api-docs", tag: "platform", access: "public", summary: "This OpenAPI document" },
  { method: "GET", path: "/info", tag: "platform", access: "user", summary: "Application info: version, licence, LDAP, SMTP flags" },
  { method: "GET", path: "/settings_essentials", tag: "settings", access: "public", summary: "Instance name, logos and module flags" },
  { method: "GET", path: "/settings", tag: "settings", access: "admin", summary: "All settings (secrets only as *_set flags)" },
  { method: "PUT", path: "/settings", tag: "settings", access: "admin", body: settingsPatchSchema, summary: "Update settings" },
  { method: "PATCH", path: "/settings", tag: "settings", access: "admin", body: settingsPatchSchema, summary: "Update some settings" },
  { method: "POST", path: "/mail/test", tag: "settings", access: "admin", body: testMailSchema, summary: "Send a test e-mail through the configured SMTP server" },
  { method: "POST", path: "/mail/test_welcome", tag: "settings", access: "admin", body: welcomeTestSchema, summary: "Send the drafted enrolment welcome e-mail (Markdown) as a test" },
  { method: "GET", path: "/settings_enterprise", tag: "settings", access: "user", summary: "Enterprise settings in force: {admin_device_management, client_traffic_policy, only_client_activation}; the defaults (false, none, false) while enterprise features are not available (stored values are kept)" },
  { method: "PATCH", path: "/settings_enterprise", tag: "settings", access: "admin", enterprise: true, body: enterpriseSettingsPatchSchema, summary: "Update some enterprise settings" },
  { method: "GET", path: "/ldap/test", tag: "settings", access: "admin", summary: "Test the LDAP settings: connect, bind and search reported separately (400 {msg} naming the failed step)" },
  { method: "GET", path: "/ldap/status", tag: "settings", access: "admin", summary: "LDAP state: configured, enabled, last sync time, result and error" },
  { method: "POST", path: "/ldap/sync", tag: "settings", access: "admin", enterprise: true, summary: "Run the two-way LDAP sync now (enterprise): summary, or 400 {msg, kind}" },
  { method: "GET", path: "/enterprise_info", tag: "platform", access: "admin", summary: "Licence as defguard reports it: {license_info: {valid_until, subscription, expired, limits_exceeded, tier}}, null without a licence that verifies" },
  { method: "GET", path: "/license", tag: "platform", access: "admin", summary: "The stored licence for the Settings page: {state (none, invalid, valid, grace, expired), error, enterprise, usage, limits, limits_exceeded, customer, tier, subscription, valid_until, grace_until, license_limits, enterprise_settings: {in_force, stored} (the enterprise settings as stored, and whether they apply or the defaults do)}" },
  { method: "GET", path: "/updates", tag: "platform", access: "admin", summary: "Available update, or null" },
  { method: "GET", path: "/outdated", tag: "platform", access: "admin", summary: "Components too old for this console: {gateways: [{version, hostname}], proxy}" },
  { method: "GET", path: "/openid/provider", tag: "openid", access: "admin", enterprise: true, summary: "External OpenID provider: {provider, settings} (secrets only as *_set flags, sync status); 204 without body when none is set" },
  { method: "POST", path: "/openid/provider", tag: "openid", access: "admin", enterprise: true, body: providerSchema, summary: "Set the external OpenID provider (one at a time), its directory sync and the sign-in settings; secrets are write-only (empty keeps them)", ok: { status: 201, description: "the provider" } },
  { method: "PUT", path: "/openid/provider/{name}", tag: "openid", access: "admin", enterprise: true, body: providerSchema, summary: "Modify the external OpenID provider of that name (404 when it is not the current one)" },
  { method: "DELETE", path: "/openid/provider/{name}", tag: "openid", access: "admin", enterprise: true, summary: "Remove the external OpenID provider; locations using it for client MFA fall back to the console's MFA" },
  { method: "GET", path: "/openid/auth_info", tag: "openid", access: "public", summary: "External sign-in: {url, button_display_name}, with the sealed state/nonce/PKCE cookie; 404 when no provider is set" },
  { method: "POST", path: "/openid/callback", tag: "openid", access: "public", body: callbackSchema, summary: "External sign-in callback {code, state}: 200 {user, url} signed in, 201 second-factor methods when MFA is on" },
  { method: "GET", path: "/test_directory_sync", tag: "openid", access: "admin", enterprise: true, summary: "Directory sync connection test: {success, message, users?, groups?}" },
  { method: "GET", path: "/oauth", tag: "openid", access: "admin", summary: "OpenID apps: [{id, client_id, client_secret, name, redirect_uri, scope, enabled}]" },
  { method: "POST", path: "/oauth", tag: "openid", access: "admin", body: openidClientSchema, summary: "Add an OpenID app (client id and secret made on the server)", ok: { status: 201, description: "OpenidClient" } },
  { method: "GET", path: "/oauth/{client_id}", tag: "openid", access: "admin", summary: "One OpenID app" },
  { method: "PUT", path: "/oauth/{client_id}", tag: "openid", access: "admin", body: openidClientSchema, summary: "Edit an OpenID app" },
  { method: "POST", path: "/oauth/{client_id}", tag: "openid", access: "admin", body: openidClientStateSchema, summary: "Enable or disable an OpenID app" },
  { method: "DELETE", path: "/oauth/{client_id}", tag: "openid", access: "admin", summary: "Delete an OpenID app (its tokens are revoked)" },
  { method: "POST", path: "/oauth/{client_id}/secret", tag: "openid", access: "admin", summary: "Regenerate an OpenID app's client secret (its tokens are revoked)" },
  { method: "POST", path: "/oauth/keys/rotate", tag: "openid", access: "admin", summary: "Rotate the OpenID signing keys (needs a fresh proof, else 403 reauth_required); old keys stay in the JWKS until their tokens expired" },
  { method: "DELETE", path: "/user/{username}/oauth_app/{client_id}", tag: "openid", access: "self-or-admin", summary: "Revoke a user's consent to an OpenID app, and the app's tokens for that user" },
  // External identity: directory "Sync now".
  { method: "POST", path: "/directory_sync", tag: "openid", access: "admin", enterprise: true, summary: "Directory sync now (Settings → OpenID): {success, message, users, groups, changes, skipped, last_sync_at}; 400 {msg} when no provider with a directory is set, sync is off, or the sync failed (nothing changed)" },
  { method: "POST", path: "/openid/mfa/callback", tag: "openid", access: "public", body: callbackSchema, summary: "Client MFA through the external provider (location MFA external): the /openid/mfa/callback page posts {code, state}; 200 {location, device} once the desktop client's login is confirmed (then /client-mfa/finish gives the preshared key); 400 bad or expired state, 401 answer refused, 403 not the device's owner" },
  { method: "GET", path: "/activity_log_stream", tag: "activity", access: "admin", summary: "Activity log streams: [{id, name, stream_type, config: {url, username, password, cert}, status: {last_success, backlog, last_error, last_error_at, paused}}] (paused: why delivery waits, while enterprise features are unavailable; null while it runs)" },
  { method: "POST", path: "/activity_log_stream", tag: "activity", access: "admin", enterprise: true, body: logStreamSchema, summary: "Add a Vector or Logstash HTTP stream (enterprise)", ok: { status: 201, description: "{}" } },
  { method: "GET", path: "/activity_log_stream/{id}", tag: "activity", access: "admin", summary: "One activity log stream" },
  { method: "PUT", path: "/activity_log_stream/{id}", tag: "activity", access: "admin", enterprise: true, body: logStreamSchema, summary: "Edit an activity log stream (enterprise)" },
  { method: "DELETE", path: "/activity_log_stream/{id}", tag: "activity", access: "admin", summary: "Delete an activity log stream and its queued batches (enterprise)" },
  { method: "GET", path: "/webhook", tag: "webhooks", access: "admin", summary: "Webhooks: [{id, url, description, token, enabled, on_user_created, on_user_deleted, on_user_modified, on_hwkey_provision}]" },
  { method: "POST", path: "/webhook", tag: "webhooks", access: "admin", body: webhookSchema, summary: "Add a webhook", ok: { status: 201, description: "WebHook" } },
  { method: "GET", path: "/webhook/{id}", tag: "webhooks", access: "admin", summary: "One webhook" },
  { method: "PUT", path: "/webhook/{id}", tag: "webhooks", access: "admin", body: webhookSchema, summary: "Edit a webhook" },
  { method: "POST", path: "/webhook/{id}", tag: "webhooks", access: "admin", body: webhookStateSchema, summary: "Enable or disable a webhook" },
  { method: "DELETE", path: "/webhook/{id}", tag: "webhooks", access: "admin", summary: "Delete a webhook and its delivery log" },
  { method: "GET", path: "/webhook/{id}/delivery", tag: "webhooks", access: "admin", summary: "Delivery log, newest first (last 100): [{id, event, state, attempts, created_at, last_attempt_at, next_attempt_at, delivered_at, response_code, error}]" },
  { method: "POST", path: "/webhook/{id}/delivery/{deliveryId}/retry", tag: "webhooks", access: "admin", summary: "Send a pending or failed delivery now" },
  { method: "GET", path: "/user/{username}/auth_key", tag: "authentication keys", access: "self-or-admin", summary: "A user's SSH and GPG keys: [{id, name, key_type, key, user_id, yubikey_serial, yubikey_id, yubikey_name}]" },
  { method: "POST", path: "/user/{username}/auth_key", tag: "authentication keys", access: "self-or-admin", body: authKeyCreateSchema, summary: "Add an SSH (OpenSSH one-line: ed25519, ecdsa, RSA of 2048+ bits, security keys) or GPG (armored public key block) key; 400 when it does not parse, 409 when already added", ok: { status: 201, description: "the stored key" } },
  { method: "DELETE", path: "/user/{username}/auth_key/{id}", tag: "authentication keys", access: "self-or-admin", summary: "Delete an SSH or GPG key" },
  { method: "POST", path: "/user/{username}/auth_key/{id}/rename", tag: "authentication keys", access: "self-or-admin", body: keyRenameSchema, summary: "Rename an SSH or GPG key {name}" },
  { method: "GET", path: "/ssh_authorized_keys", tag: "authentication keys", access: "public", query: authorizedKeysQuerySchema, summary: "authorized_keys text (text/plain, one key a line) for sshd's AuthorizedKeysCommand: the SSH keys of active users, filtered by ?username= and/or ?group= (members); empty without a filter or for unknown names" },
  { method: "GET", path: "/worker", tag: "provisioning", access: "admin", enterprise: true, summary: "YubiKey provisioning workers: [{id, ip, connected}]" },
  { method: "GET", path: "/worker/token", tag: "provisioning", access: "admin", enterprise: true, summary: "A worker token (JWT, DEFGUARD_YUBIBRIDGE_SECRET) and the gRPC address: {token, grpc_url}", ok: { status: 201, description: "{token, grpc_url}" } },
  { method: "POST", path: "/worker/job", tag: "provisioning", access: "user", enterprise: true, body: workerJobSchema, summary: "Provision a YubiKey for a user on a worker (users: only for themselves): {id}", ok: { status: 201, description: "{id}" } },
  { method: "GET", path: "/worker/{id}", tag: "provisioning", access: "user", enterprise: true, summary: "Status of job {id}: null while pending, {success, serial, error} when done, 404 {message} when it failed (owner or admin)" },
  { method: "DELETE", path: "/worker/{id}", tag: "provisioning", access: "admin", enterprise: true, summary: "Forget worker {id} and its pending jobs" },
  { method: "GET", path: "/user/{username}/api_token", tag: "api tokens", access: "admin", summary: "An admin's API tokens: [{id, name, created_at}]" },
  { method: "POST", path: "/user/{username}/api_token", tag: "api tokens", access: "admin", body: apiTokenCreateSchema, summary: "Make an API token for an admin: {token} (dg- and 32 letters or digits), shown only in this answer; use it as Authorization: Bearer <token>", ok: { status: 201, description: "{token}" } },
  { method: "DELETE", path: "/user/{username}/api_token/{id}", tag: "api tokens", access: "admin", summary: "Delete an API token (it stops working at once)" },
  { method: "POST", path: "/user/{username}/api_token/{id}/rename", tag: "api tokens", access: "admin", body: keyRenameSchema, summary: "Rename an API token {name}" },

  { method: "POST", path: "/auth", tag: "auth", access: "public", body: loginSchema, summary: "Sign in (200 {user,url}; 201 when a second factor is required)", ok: { status: 200, description: "signed in" } },
  { method: "POST", path: "/auth/logout", tag: "auth", access: "session", summary: "Sign out" },
  { method: "POST", path: "/auth/reauth", tag: "auth", access: "user", body: reauthSchema, summary: "Confirm the password or a TOTP code again; changing sign-in security needs it within 10 minutes of sign-in or of this call (else 403 reauth_required)", withoutMfa: true },
  { method: "GET", path: "/me", tag: "auth", access: "user", summary: "The signed-in user (UserInfo)", withoutMfa: true },
  { method: "POST", path: "/password_reset", tag: "auth", access: "public", body: resetPasswordSchema, summary: "Set a new password with an e-mailed reset token" },

  { method: "POST", path: "/auth/totp/init", tag: "mfa", access: "user", summary: "Start TOTP setup: {secret, uri} (replacing a TOTP in use needs a fresh proof, else 403 reauth_required)", withoutMfa: true },
  { method: "POST", path: "/auth/totp", tag: "mfa", access: "user", body: codeSchema, summary: "Confirm TOTP with a code: {codes} (recovery codes the first time)", withoutMfa: true },
  { method: "DELETE", path: "/auth/totp", tag: "mfa", access: "user", summary: "Turn TOTP off (needs a fresh proof, else 403 reauth_required)" },
  { method: "POST", path: "/auth/totp/verify", tag: "mfa", access: "session", body: codeSchema, summary: "Sign-in step: TOTP code → {user, url}" },
  { method: "POST", path: "/auth/email/init", tag: "mfa", access: "user", summary: "E-mail a setup code", withoutMfa: true },
  { method: "POST", path: "/auth/email", tag: "mfa", access: "user", body: codeSchema, summary: "Confirm e-mail codes: {codes}", withoutMfa: true },
  { method: "DELETE", path: "/auth/email", tag: "mfa", access: "user", summary: "Turn e-mail codes off (needs a fresh proof, else 403 reauth_required)" },
  { method: "GET", path: "/auth/email", tag: "mfa", access: "session", summary: "Sign-in step: e-mail a login code" },
  { method: "POST", path: "/auth/email/verify", tag: "mfa", access: "session", body: codeSchema, summary: "Sign-in step: e-mail code → {user, url}" },
  { method: "POST", path: "/auth/webauthn/init", tag: "mfa", access: "user", summary: "Security key registration options", withoutMfa: true },
  { method: "POST", path: "/auth/webauthn/finish", tag: "mfa", access: "user", body: webauthnFinishSchema, summary: "Register a security key {name, ...credential}: {codes}", withoutMfa: true },
  { method: "POST", path: "/auth/webauthn/start", tag: "mfa", access: "session", summary: "Sign-in step: security key options" },
  { method: "POST", path: "/auth/webauthn", tag: "mfa", access: "session", body: webauthnAssertionSchema, summary: "Sign-in step: security key assertion → {user, url}" },
  { method: "POST", path: "/auth/recovery", tag: "mfa", access: "session", body: recoveryCodeSchema, summary: "Sign-in step: recovery code → {user, url}" },
  { method: "PUT", path: "/auth/mfa", tag: "mfa", access: "user", body: enableMfaSchema, summary: "Turn MFA on with a default method: {codes}", withoutMfa: true },
  { method: "DELETE", path: "/auth/mfa", tag: "mfa", access: "user", summary: "Turn MFA off (wipes secrets, recovery codes, security keys) (needs a fresh proof, else 403 reauth_required)" },
  { method: "DELETE", path: "/user/{username}/mfa", tag: "mfa", access: "admin", summary: "Turn a user's MFA off (needs a fresh proof, else 403 reauth_required)" },
  { method: "DELETE", path: "/user/{username}/security_key/{keyId}", tag: "mfa", access: "self-or-admin", summary: "Delete a security key (needs a fresh proof, else 403 reauth_required)" },
  { method: "POST", path: "/user/{username}/security_key/{keyId}/rename", tag: "mfa", access: "self-or-admin", body: renameSchema, summary: "Rename a security key" },

  { method: "GET", path: "/user", tag: "users", access: "admin", query: listUsersQuerySchema, summary: "List users (full array; {data,pagination} with ?page)" },
  { method: "POST", path: "/user", tag: "users", access: "admin", body: createUserSchema, summary: "Create a user", ok: { status: 201, description: "UserInfo" } },
  { method: "POST", path: "/user/available", tag: "users", access: "admin", body: usernameAvailableSchema, summary: "200 when the username is free, 400 when taken" },
  { method: "PUT", path: "/user/change_password", tag: "users", access: "user", body: changeOwnPasswordSchema, summary: "Change your own password" },
  { method: "GET", path: "/user/{username}", tag: "users", access: "self-or-admin", summary: "A user with devices and security keys" },
  { method: "PUT", path: "/user/{username}", tag: "users", access: "self-or-admin", body: updateUserSchema, summary: "Edit a user (admins: all fields; users: names and phone); a new e-mail address needs a fresh proof, else 403 reauth_required" },
  { method: "DELETE", path: "/user/{username}", tag: "users", access: "admin", summary: "Delete a user and everything they own" },
  { method: "PUT", path: "/user/{username}/password", tag: "users", access: "admin", body: setPasswordSchema, summary: "Set a user's password" },
  { method: "POST", path: "/user/{username}/reset_password", tag: "users", access: "admin", summary: "E-mail a password reset link" },
  { method: "POST", path: "/user/{username}/start_enrollment", tag: "enrollment", access: "admin", body: startUserEnrollmentSchema, summary: "Enrolment token for a user without a password, e-mailed when asked: {enrollment_token, enrollment_url}", ok: { status: 201, description: "Enrolment token (shown once)" } },
  { method: "POST", path: "/user/{username}/start_desktop", tag: "enrollment", access: "self-or-admin", body: startUserEnrollmentSchema, summary: "Desktop-client activation token for an enrolled user: {enrollment_token, enrollment_url}", ok: { status: 201, description: "Activation token (shown once)" } },

  { method: "GET", path: "/group", tag: "groups", access: "admin", summary: "Group names" },
  { method: "POST", path: "/group", tag: "groups", access: "admin", body: groupSchema, summary: "Create a group", ok: { status: 201, description: "GroupInfo" } },
  { method: "GET", path: "/group-info", tag: "groups", access: "admin", summary: "Groups with members and locations" },
  { method: "GET", path: "/group/{name}", tag: "groups", access: "admin", summary: "One group" },
  { method: "PUT", path: "/group/{name}", tag: "groups", access: "admin", body: groupUpdateSchema, summary: "Rename / edit a group (path: original name)" },
  { method: "DELETE", path: "/group/{name}", tag: "groups", access: "admin", summary: "Delete a group" },
  { method: "POST", path: "/group/{name}", tag: "groups", access: "admin", body: addMemberSchema, summary: "Add a member" },
  { method: "DELETE", path: "/group/{name}/user/{username}", tag: "groups", access: "admin", summary: "Remove a member" },
  { method: "POST", path: "/groups-assign", tag: "groups", access: "admin", body: groupsAssignSchema, summary: "Add users to groups" },
  { method: "GET", path: "/acl/rule", tag: "acl", access: "admin", enterprise: true, summary: "ACL rules (applied and pending), ApiAclRule[]" },
  { method: "POST", path: "/acl/rule", tag: "acl", access: "admin", enterprise: true, body: aclRuleSchema, summary: "Create an ACL rule (state new)", ok: { status: 201, description: "ApiAclRule" } },
  { method: "GET", path: "/acl/rule/{id}", tag: "acl", access: "admin", enterprise: true, summary: "One ACL rule" },
  { method: "PUT", path: "/acl/rule/{id}", tag: "acl", access: "admin", enterprise: true, body: aclRuleSchema, summary: "Edit an ACL rule; an applied rule gets a pending modified copy (answered)" },
  { method: "DELETE", path: "/acl/rule/{id}", tag: "acl", access: "admin", enterprise: true, summary: "Mark an applied ACL rule for deletion, or discard a pending one" },
  { method: "PUT", path: "/acl/rule/apply", tag: "acl", access: "admin", enterprise: true, body: applyRulesSchema, summary: "Deploy pending ACL rule changes" },
  { method: "GET", path: "/acl/alias", tag: "acl", access: "admin", enterprise: true, summary: "ACL aliases, ApiAclAlias[]" },
  { method: "POST", path: "/acl/alias", tag: "acl", access: "admin", enterprise: true, body: aclAliasSchema, summary: "Create an ACL alias", ok: { status: 201, description: "ApiAclAlias" } },
  { method: "GET", path: "/acl/alias/{id}", tag: "acl", access: "admin", enterprise: true, summary: "One ACL alias" },
  { method: "PUT", path: "/acl/alias/{id}", tag: "acl", access: "admin", enterprise: true, body: aclAliasSchema, summary: "Edit an ACL alias; an applied alias gets a pending modified copy listing the rules it changes" },
  { method: "DELETE", path: "/acl/alias/{id}", tag: "acl", access: "admin", enterprise: true, summary: "Delete an unused ACL alias (409 while rules use it) or discard a pending change" },
  { method: "PUT", path: "/acl/alias/apply", tag: "acl", access: "admin", enterprise: true, body: applyAliasesSchema, summary: "Deploy pending ACL alias changes" },
  { method: "GET", path: "/acl/check", tag: "acl", access: "admin", enterprise: true, query: aclCheckQuery, summary: "Would a user's devices (or a device) reach destination:port in a location? {allowed, rule, reason, devices}, from the compiled firewall" },
  { method: "GET", path: "/acl/impact", tag: "acl", access: "admin", enterprise: true, query: aclImpactQuery, summary: "Devices gaining and losing access per location if the given pending rules/aliases (default: all) were deployed" },
  { method: "GET", path: "/report/stale_access", tag: "reports", access: "admin", query: staleAccessQuery, summary: "Stale-access report: users and devices without sign-in or VPN handshake for ?days= (default 90), admins without MFA, API tokens unused that long, groups granting locations to nobody; ?format=csv answers one CSV table (text/csv download)" },

  { method: "GET", path: "/activity_log", tag: "activity", access: "user", query: activityQuerySchema, summary: "Activity log page (admins: all; users: own)" },
  { method: "GET", path: "/activity_log/filters", tag: "activity", access: "user", summary: "Distinct users, events, modules, locations for filters" },

  { method: "GET", path: "/network", tag: "locations", access: "admin", summary: "Locations" },
  { method: "POST", path: "/network", tag: "locations", access: "admin", body: locationSchema, summary: "Create a location (key pair made on the server)", ok: { status: 201, description: "location" } },
  { method: "POST", path: "/network/import", tag: "locations", access: "admin", body: importSchema, summary: "Create a location from a wg-quick file: {network, devices}", ok: { status: 201, description: "location and peers to map" } },
  { method: "GET", path: "/network/{id}", tag: "locations", access: "admin", summary: "One location" },
  { method: "PUT", path: "/network/{id}", tag: "locations", access: "admin", body: locationSchema, summary: "Edit a location (addresses re-assigned only where they no longer fit)" },
  { method: "DELETE", path: "/network/{id}", tag: "locations", access: "admin", summary: "Delete a location and its network devices" },
  { method: "POST", path: "/network/{id}/devices", tag: "locations", access: "admin", body: mapDevicesSchema, summary: "Map imported peers to users", ok: { status: 201, description: "{created}" } },
  { method: "GET", path: "/network/{id}/device/{deviceId}/config", tag: "devices", access: "user", summary: "A device's wg-quick config for a location (owner or admin; text/plain)" },

  { method: "GET", path: "/device", tag: "devices", access: "admin", summary: "All user devices" },
  { method: "POST", path: "/device/{id}", tag: "devices", access: "self-or-admin", body: deviceSchema, summary: "Add a device for the user named in the path: {device, configs}", ok: { status: 201, description: "device and configs" } },
  { method: "GET", path: "/device/{id}", tag: "devices", access: "user", summary: "A device (owner or admin)" },
  { method: "PUT", path: "/device/{id}", tag: "devices", access: "user", body: deviceSchema, summary: "Edit a device (owner or admin)" },
  { method: "DELETE", path: "/device/{id}", tag: "devices", access: "user", summary: "Delete a device (owner or admin)" },
  { method: "GET", path: "/device/user/{username}", tag: "devices", access: "self-or-admin", summary: "A user's devices with their addresses per location" },
  { method: "GET", path: "/device/network", tag: "network-devices", access: "admin", summary: "Network devices" },
  { method: "POST", path: "/device/network", tag: "network-devices", access: "admin", body: networkDeviceSchema, summary: "Add a network device: {device, config}", ok: { status: 201, description: "device and config" } },
  { method: "GET", path: "/device/network/{id}", tag: "network-devices", access: "admin", summary: "One network device" },
  { method: "PUT", path: "/device/network/{id}", tag: "network-devices", access: "admin", body: networkDeviceUpdateSchema, summary: "Edit a network device (no key: the device keeps its own)" },
  { method: "DELETE", path: "/device/network/{id}", tag: "network-devices", access: "admin", summary: "Delete a network device" },
  { method: "GET", path: "/device/network/{id}/config", tag: "network-devices", access: "admin", summary: "A network device's config (private key placeholder)" },
  { method: "GET", path: "/device/network/ip/{id}", tag: "network-devices", access: "admin", summary: "Next free address in each CIDR of a location" },
  { method: "POST", path: "/device/network/ip/{id}", tag: "network-devices", access: "admin", body: validateIpsSchema, summary: "Check that addresses are valid and free in a location" },
  { method: "POST", path: "/device/network/start_cli", tag: "network-devices", access: "admin", body: networkDeviceCliSchema, summary: "Add a network device the defguard CLI configures: {enrollment_token, enrollment_url, expires_at}", ok: { status: 201, description: "CLI token (shown once)" } },
  { method: "POST", path: "/device/network/start_cli/{id}", tag: "network-devices", access: "admin", summary: "A new defguard CLI token for a network device not configured yet", ok: { status: 201, description: "CLI token (shown once)" } },
  { method: "POST", path: "/enrollment/start", tag: "enrollment", access: "public", body: enrollmentStartSchema, summary: "defguard proxy: check a token → EnrollmentStartResponse; sets the defguard_proxy session cookie" },
  { method: "POST", path: "/enrollment/create_device", tag: "enrollment", access: "public", body: enrollmentCreateDeviceSchema, summary: "defguard proxy: a new device of the enrolling user, or a network device's key from the CLI → DeviceConfigResponse" },
  { method: "POST", path: "/enrollment/activate_user", tag: "enrollment", access: "public", body: activateUserSchema, summary: "defguard proxy: the enrolling user's password and phone; ends the enrolment session" },
  { method: "POST", path: "/enrollment/network_info", tag: "enrollment", access: "public", body: networkInfoSchema, summary: "defguard proxy: configuration of an existing device of the enrolling user → DeviceConfigResponse" },
  { method: "POST", path: "/enrollment/register-mfa/code/start", tag: "enrollment", access: "public", body: registerMfaStartSchema, summary: "defguard proxy: start TOTP ({totp_secret}) or e-mail code set-up for the enrolling user" },
  { method: "POST", path: "/enrollment/register-mfa/code/finish", tag: "enrollment", access: "public", body: registerMfaFinishSchema, summary: "defguard proxy: confirm the enrolling user's MFA method with its first code → {recovery_codes}" },
  { method: "POST", path: "/poll", tag: "enrollment", access: "public", body: pollSchema, summary: "defguard proxy: a desktop client's current configuration for its polling token → InstanceInfoResponse" },
  { method: "POST", path: "/password-reset/request", tag: "enrollment", access: "public", body: passwordResetRequestSchema, summary: "defguard proxy: e-mail a password reset link to this address (answers the same whether or not it is known)" },
  { method: "POST", path: "/password-reset/start", tag: "enrollment", access: "public", body: passwordResetStartSchema, summary: "defguard proxy: check a reset token → {deadline_timestamp}; sets the password reset session cookie" },
  { method: "POST", path: "/password-reset/reset", tag: "enrollment", access: "public", body: passwordResetResetSchema, summary: "defguard proxy: the new password for the reset session; the token is spent" },
  { method: "POST", path: "/client-mfa/start", tag: "enrollment", access: "public", body: clientMfaStartSchema, summary: "defguard proxy: start a desktop client's MFA login to an MFA location (method 0 TOTP, 1 e-mail, 2 OpenID) → {token}" },
  { method: "POST", path: "/client-mfa/finish", tag: "enrollment", access: "public", body: clientMfaFinishSchema, summary: "defguard proxy: finish the MFA login with its code → {preshared_key}; the device is a peer of the location until it stays without a handshake for peer_disconnect_threshold" },
  { method: "POST", path: "/enrollment/register_mobile", tag: "enrollment", access: "public", body: registerMobileSchema, summary: "defguard proxy: defguard's mobile app registers its biometric MFA key (Ed25519, base64) for a device of the enrolling user; empty 200" },

  { method: "GET", path: "/network/gateways", tag: "gateways", access: "admin", summary: "Gateways of every location: {\"<location id>\": [GatewayState]}" },
  { method: "GET", path: "/network/{id}/gateways", tag: "gateways", access: "admin", summary: "Gateways of a location" },
  { method: "DELETE", path: "/network/{id}/gateways/{gatewayId}", tag: "gateways", access: "admin", summary: "Forget a gateway" },
  { method: "GET", path: "/network/{id}/token", tag: "gateways", access: "admin", summary: "Gateway token and gRPC URL: {token, grpc_url, grpc_plaintext_exposed}" },
  { method: "POST", path: "/network/{id}/token/rotate", tag: "gateways", access: "admin", summary: "Regenerate the gateway token: older tokens are revoked and gateways using them are cut off; answers like GET /network/{id}/token" },
  // Gateway revisions, drift and propagation (lib/gateways/sync.ts)
  { method: "POST", path: "/network/{id}/gateways/reconcile", tag: "gateways", access: "admin", summary: "Reconcile now: resend the full configuration (peers and firewall) to the location's gateways → {expected_revision}" },
  { method: "GET", path: "/network/{id}/gateways/sync", tag: "gateways", access: "admin", summary: "Drift repair and propagation alert settings, expected revision and the last hour's propagation p50/p95" },
  { method: "PUT", path: "/network/{id}/gateways/sync", tag: "gateways", access: "admin", body: syncSettingsSchema, summary: "Set automatic drift repair and the propagation alert threshold (ms) of a location" },
  { method: "GET", path: "/network/stats", tag: "stats", access: "admin", query: statsQuerySchema, summary: "Active users/devices and transfer of all locations since ?from" },
  { method: "GET", path: "/network/{id}/stats", tag: "stats", access: "admin", query: statsQuerySchema, summary: "Active users/devices and transfer of a location since ?from" },
  { method: "GET", path: "/network/{id}/stats/users", tag: "stats", access: "admin", query: statsQuerySchema, summary: "A location's active devices by user, with transfer series" },

  // Bulk actions (lib/bulk): many users or devices, by id or by the list's filter, in one transaction.
  { method: "POST", path: "/user/bulk", tag: "users", access: "admin", body: userBulkSchema, summary: "A bulk action on users {action: disable | enable | add_to_groups | remove_from_groups | delete | start_enrollment, ids | filter: {search, filter}, groups}: one transaction, one activity entry per user, one configuration per affected location to its gateways; unknown ids fail it all (400 naming them); the last active admin stays. {action, count, changed}" },
  { method: "POST", path: "/device/bulk", tag: "devices", access: "admin", body: deviceBulkSchema, summary: "A bulk action on devices {action: delete | move | regenerate_configs, ids | filter: {type, location_id, search}, location_id}: move is for network devices (new addresses in location_id); one transaction, one activity entry per device, one configuration per affected location to its gateways; unknown ids fail it all (400 naming them). {action, count, changed}. A device body instead ({name, wireguard_pubkey, description}, no action) is POST /device/{username} for the user named bulk (that user or an admin)" },
  // The methods of /user/{username} for a user named "bulk" (the static /user/bulk takes the path).
  { method: "GET", path: "/user/bulk", tag: "users", access: "self-or-admin", aliasOf: "/user/{username}", summary: "The user named bulk: as GET /user/{username}" },
  { method: "PUT", path: "/user/bulk", tag: "users", access: "self-or-admin", aliasOf: "/user/{username}", body: updateUserSchema, summary: "Edit the user named bulk: as PUT /user/{username}" },
  { method: "DELETE", path: "/user/bulk", tag: "users", access: "admin", aliasOf: "/user/{username}", summary: "Delete the user named bulk: as DELETE /user/{username}" },
  // Settings → Global branding and the Support page (issue 19).
  { method: "PUT", path: "/settings/{id}", tag: "settings", access: "admin", summary: "Restore the default branding (instance name Defguard, default logos, uploaded logos deleted) of settings 1 (other ids 404)" },
  { method: "GET", path: "/branding/logo/{kind}", tag: "settings", access: "public", summary: "An uploaded logo (kind main or nav) with ETag and Cache-Control; 404 {msg} when none is uploaded" },
  { method: "POST", path: "/branding/logo/{kind}", tag: "settings", access: "admin", body: logoUploadSchema, summary: "Upload the main (max 250x100 px) or navigation (max 100x100 px) logo as a data URL: PNG, JPEG or a plain SVG, at most 256 KB; answers the settings" },
  { method: "DELETE", path: "/branding/logo/{kind}", tag: "settings", access: "admin", summary: "Remove an uploaded logo (back to the default); answers the settings" },
  { method: "GET", path: "/support/configuration", tag: "support", access: "admin", summary: "The instance's configuration for support, every secret redacted" },
  { method: "GET", path: "/support/logs", tag: "support", access: "admin", summary: "The last 1,000 log lines of this console process (text/plain), secrets redacted" },
  { method: "GET", path: "/support/bundle", tag: "support", access: "admin", summary: "Support bundle download (JSON): configuration, versions, gateway states, last 1,000 log lines, secrets redacted" },
  { method: "POST", path: "/mail/support", tag: "support", access: "admin", summary: "E-mail the support bundle to the support address (settings support_email): {to}; 400 {msg} when none is set, 503 {msg} when the SMTP server refuses it" },

  // Any other path: JSON 404 {msg} (never the HTML not-found page).
  ...(["GET", "POST", "PUT", "PATCH", "DELETE"] as const).map(
    (method): Operation => ({ method, path: "/{path}", tag: "platform", access: "public", catchAll: true, summary: "Unknown path: 404 {msg}", ok: { status: 404, description: "{msg}" } }),
  ),
];
