import "server-only";
import { transaction, type Emit } from "../events";
import type { ModuleName } from "../auth/modules";
import { eq } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { settings } from "../db/schema";
import { encryptSecret } from "../crypto";
import { recordActivity, type Actor } from "../activity/service";
import { badRequest } from "../errors";
import { decodeLicence, LicenceError } from "../enterprise/licence";
import { entitlement } from "../enterprise/service";
import type { SmtpEncryption } from "../mail/schema";
import type { EnterpriseSettingsPatch, SettingsPatch } from "./schema";

export type Settings = typeof settings.$inferSelect;

/** Default logos, at the paths defguard deployments route to the core (`/svg/...`). */
export const DEFAULT_MAIN_LOGO = "/svg/logo-defguard-white.svg";
export const DEFAULT_NAV_LOGO = "/svg/defguard-nav-logo.svg";

export const DEFAULT_WELCOME_EMAIL_SUBJECT = "Welcome: your account is ready";
/** The enrollment welcome text used while none is set ({{ ... }} are filled in when it is sent). */
export const DEFAULT_WELCOME_MESSAGE = `Hello {{ first_name }} {{ last_name }},

your account is set up. Sign in with the username {{ username }} at {{ defguard_url }}
to manage your password, second factors and VPN devices.

Questions? Ask {{ admin_first_name }} {{ admin_last_name }} ({{ admin_email }}).
`;

/** Stored SMTP encryption (lower case) ↔ defguard's API values. */
const SMTP_TO_API: Record<string, SmtpEncryption> = { none: "None", starttls: "StartTls", implicit_tls: "ImplicitTls" };
const SMTP_FROM_API: Record<SmtpEncryption, string> = { None: "none", StartTls: "starttls", ImplicitTls: "implicit_tls" };

export async function getSettings(tx: Tx = getDb()): Promise<Settings> {
  const [row] = await tx.select().from(settings).where(eq(settings.id, 1)).limit(1);
  if (row) return row;
  const [created] = await tx.insert(settings).values({ id: 1 }).onConflictDoNothing().returning();
  return created ?? (await tx.select().from(settings).where(eq(settings.id, 1)))[0];
}

/** GET /settings_essentials (docs/api.md): public, empty logo URLs replaced by the defaults. */
export async function getEssentials() {
  const s = await getSettings();
  return {
    instance_name: s.instanceName,
    main_logo_url: s.mainLogoUrl || DEFAULT_MAIN_LOGO,
    nav_logo_url: s.navLogoUrl || DEFAULT_NAV_LOGO,
    openid_enabled: s.openidEnabled,
    wireguard_enabled: s.wireguardEnabled,
    webhooks_enabled: s.webhooksEnabled,
    worker_enabled: s.workerEnabled,
    default_overview_view: s.defaultOverviewView as "grid" | "list",
  };
}

/** SMTP is usable when a server, port and sender are set. */
export function smtpConfigured(s: Settings): boolean {
  return Boolean(s.smtpServer && s.smtpPort && s.smtpSender);
}

/**
 * GET /settings (admin): defguard 1.6's Settings object plus a few fields of ours (require_mfa,
 * smtp_configured, *_password_set). Secrets are write-only: smtp_password and
 * ldap_bind_password always come back empty; *_password_set says whether one is stored.
 */
export function settingsView(s: Settings) {
  return {
    // modules
    openid_enabled: s.openidEnabled,
    wireguard_enabled: s.wireguardEnabled,
    webhooks_enabled: s.webhooksEnabled,
    worker_enabled: s.workerEnabled,
    // branding
    instance_name: s.instanceName,
    main_logo_url: s.mainLogoUrl,
    nav_logo_url: s.navLogoUrl,
    // SMTP
    smtp_server: s.smtpServer,
    smtp_port: s.smtpPort,
    smtp_encryption: SMTP_TO_API[s.smtpEncryption] ?? "None",
    smtp_user: s.smtpUser,
    smtp_password: "",
    smtp_sender: s.smtpSender,
    // enrollment
    enrollment_vpn_step_optional: s.enrollmentVpnStepOptional,
    enrollment_welcome_message: s.enrollmentWelcomeMessage ?? DEFAULT_WELCOME_MESSAGE,
    enrollment_welcome_email: s.enrollmentWelcomeEmail ?? DEFAULT_WELCOME_MESSAGE,
    enrollment_welcome_email_subject: s.enrollmentWelcomeEmailSubject ?? DEFAULT_WELCOME_EMAIL_SUBJECT,
    enrollment_use_welcome_message_as_email: s.enrollmentUseWelcomeMessageAsEmail,
    // LDAP
    ldap_url: s.ldapUrl,
    ldap_bind_username: s.ldapBindUsername,
    ldap_bind_password: "",
    ldap_group_member_attr: s.ldapGroupMemberAttr,
    ldap_group_obj_class: s.ldapGroupObjClass,
    ldap_group_search_base: s.ldapGroupSearchBase,
    ldap_groupname_attr: s.ldapGroupnameAttr,
    ldap_member_attr: s.ldapMemberAttr,
    ldap_user_obj_class: s.ldapUserObjClass,
    ldap_user_auxiliary_obj_classes: s.ldapUserAuxiliaryObjClasses,
    ldap_user_search_base: s.ldapUserSearchBase,
    ldap_username_attr: s.ldapUsernameAttr,
    ldap_enabled: s.ldapEnabled,
    ldap_sync_enabled: s.ldapSyncEnabled,
    ldap_is_authoritative: s.ldapIsAuthoritative,
    ldap_use_starttls: s.ldapUseStarttls,
    ldap_tls_verify_cert: s.ldapTlsVerifyCert,
    ldap_sync_interval: s.ldapSyncInterval,
    ldap_uses_ad: s.ldapUsesAd,
    ldap_user_rdn_attr: s.ldapUserRdnAttr,
    ldap_sync_groups: s.ldapSyncGroups,
    // external OpenID
    openid_create_account: s.openidCreateAccount,
    openid_username_handling: s.openidUsernameHandling,
    // licence
    license: s.license,
    // gateway notifications
    gateway_disconnect_notifications_enabled: s.gatewayDisconnectNotifications,
    gateway_disconnect_notifications_inactivity_threshold: s.gatewayInactivityThreshold,
    gateway_disconnect_notifications_reconnect_notification_enabled: s.gatewayReconnectNotifications,
    // ours
    require_mfa: s.requireMfa,
    default_overview_view: s.defaultOverviewView as "grid" | "list",
    support_email: s.supportEmail ?? "",
    smtp_password_set: Boolean(s.smtpPasswordEnc),
    ldap_bind_password_set: Boolean(s.ldapBindPasswordEnc),
    smtp_configured: smtpConfigured(s),
  };
}

/** The switch of each module of Settings → Global. */
const MODULE_COLUMNS = {
  wireguard: "wireguardEnabled",
  openid: "openidEnabled",
  webhooks: "webhooksEnabled",
  worker: "workerEnabled",
} as const satisfies Record<ModuleName, keyof Settings>;

/** API field → column, for the plain (copied as is) settings. */
const PLAIN: Partial<Record<keyof SettingsPatch, keyof typeof settings.$inferInsert>> = {
  openid_enabled: "openidEnabled",
  wireguard_enabled: "wireguardEnabled",
  webhooks_enabled: "webhooksEnabled",
  worker_enabled: "workerEnabled",
  instance_name: "instanceName",
  main_logo_url: "mainLogoUrl",
  nav_logo_url: "navLogoUrl",
  enrollment_vpn_step_optional: "enrollmentVpnStepOptional",
  enrollment_use_welcome_message_as_email: "enrollmentUseWelcomeMessageAsEmail",
  ldap_user_auxiliary_obj_classes: "ldapUserAuxiliaryObjClasses",
  ldap_enabled: "ldapEnabled",
  ldap_sync_enabled: "ldapSyncEnabled",
  ldap_is_authoritative: "ldapIsAuthoritative",
  ldap_use_starttls: "ldapUseStarttls",
  ldap_tls_verify_cert: "ldapTlsVerifyCert",
  ldap_sync_interval: "ldapSyncInterval",
  ldap_uses_ad: "ldapUsesAd",
  ldap_sync_groups: "ldapSyncGroups",
  openid_create_account: "openidCreateAccount",
  openid_username_handling: "openidUsernameHandling",
  gateway_disconnect_notifications_enabled: "gatewayDisconnectNotifications",
  gateway_disconnect_notifications_inactivity_threshold: "gatewayInactivityThreshold",
  gateway_disconnect_notifications_reconnect_notification_enabled: "gatewayReconnectNotifications",
  require_mfa: "requireMfa",
  default_overview_view: "defaultOverviewView",
};

/** Optional texts: "" and null store null (unset). */
const NULLABLE_TEXT: Partial<Record<keyof SettingsPatch, keyof typeof settings.$inferInsert>> = {
  smtp_server: "smtpServer",
  smtp_user: "smtpUser",
  smtp_sender: "smtpSender",
  enrollment_welcome_message: "enrollmentWelcomeMessage",
  enrollment_welcome_email: "enrollmentWelcomeEmail",
  enrollment_welcome_email_subject: "enrollmentWelcomeEmailSubject",
  ldap_url: "ldapUrl",
  ldap_bind_username: "ldapBindUsername",
  ldap_group_member_attr: "ldapGroupMemberAttr",
  ldap_group_obj_class: "ldapGroupObjClass",
  ldap_group_search_base: "ldapGroupSearchBase",
  ldap_groupname_attr: "ldapGroupnameAttr",
  ldap_member_attr: "ldapMemberAttr",
  ldap_user_obj_class: "ldapUserObjClass",
  ldap_user_search_base: "ldapUserSearchBase",
  ldap_username_attr: "ldapUsernameAttr",
  ldap_user_rdn_attr: "ldapUserRdnAttr",
  license: "license",
  support_email: "supportEmail",
};

/** Apply the fields present; a secret given as "" keeps the stored one, null clears it. */
export async function applySettings(tx: Tx, actor: Actor, p: SettingsPatch, kind: "put" | "patch", emit: Emit) {
  if (p.license) {
    // A key that does not verify is refused (defguard does the same); an expired one is kept.
    try {
      decodeLicence(p.license);
    } catch (err) {
      if (err instanceof LicenceError) throw badRequest(err.message, "license");
      throw err;
    }
  }
  const set: Record<string, unknown> = {};
  for (const [field, column] of Object.entries(PLAIN)) {
    const v = p[field as keyof SettingsPatch];
    if (v !== undefined) set[column] = v;
  }
  for (const [field, column] of Object.entries(NULLABLE_TEXT)) {
    const v = p[field as keyof SettingsPatch];
    if (v !== undefined) set[column] = v || null;
  }
  if (p.smtp_port !== undefined) set.smtpPort = p.smtp_port ?? null;
  if (p.smtp_encryption !== undefined) set.smtpEncryption = SMTP_FROM_API[p.smtp_encryption];
  if (p.smtp_password === null) set.smtpPasswordEnc = null;
  else if (p.smtp_password) set.smtpPasswordEnc = encryptSecret(p.smtp_password);
  if (p.ldap_bind_password === null) set.ldapBindPasswordEnc = null;
  else if (p.ldap_bind_password) set.ldapBindPasswordEnc = encryptSecret(p.ldap_bind_password);
  const before = await getSettings(tx);
  if (Object.keys(set).length) await tx.update(settings).set(set).where(eq(settings.id, 1));
  // A module switched off or on: the gRPC calls it serves learn it (lib/gateways/hub.ts).
  for (const [module, column] of Object.entries(MODULE_COLUMNS) as [ModuleName, (typeof MODULE_COLUMNS)[ModuleName]][]) {
    const now = set[column];
    if (typeof now === "boolean" && now !== before[column]) emit({ type: "module.switched", module, enabled: now });
  }
  const secretKept = (k: string) => (k === "smtp_password" || k === "ldap_bind_password") && !p[k as "smtp_password"] && p[k as "smtp_password"] !== null;
  const changed = Object.keys(p).filter((k) => p[k as keyof SettingsPatch] !== undefined && !secretKept(k));
  await recordActivity(tx, actor, {
    event: kind === "put" ? "settings_updated" : "settings_updated_partial",
    description: `Settings changed: ${changed.join(", ") || "none"}`,
  });
  return settingsView(await getSettings(tx));
}

/** PUT /settings (kind "put") and PATCH /settings ("patch"), in one transaction. */
export async function saveSettings(actor: Actor, p: SettingsPatch, kind: "put" | "patch") {
  return transaction((tx, emit) => applySettings(tx, actor, p, kind, emit));
}

/** GET /settings (admin). */
export async function readSettingsView() {
  return settingsView(await getSettings());
}

/**
 * GET /settings_enterprise: defguard's EnterpriseSettings. Enforced by lib/devices (who may add,
 * change and delete devices, manual config downloads) and in every generated client config
 * (AllowedIPs under the client traffic policy); also sent to the desktop client at enrolment.
 */
export function enterpriseSettingsView(s: Settings) {
  return {
    admin_device_management: s.adminDeviceManagement,
    client_traffic_policy: s.clientTrafficPolicy as "none" | "disable_all_traffic" | "force_all_traffic",
    only_client_activation: s.onlyClientActivation,
  };
}

export type EnterpriseSettings = ReturnType<typeof enterpriseSettingsView>;

/** What applies while enterprise features are not available (defguard's EnterpriseSettings::default). */
export const DEFAULT_ENTERPRISE_SETTINGS: EnterpriseSettings = Object.freeze({
  admin_device_management: false,
  client_traffic_policy: "none",
  only_client_activation: false,
});

/** The enterprise settings as stored, whether or not they are in force (the Settings page edits these). */
export async function storedEnterpriseSettings(tx: Tx = getDb()): Promise<EnterpriseSettings> {
  return enterpriseSettingsView(await getSettings(tx));
}

/**
 * The enterprise settings in force: the stored ones while enterprise features are available
 * (docs/licence.md), else the defaults. The stored values are kept either way and apply again
 * as soon as a licence is entered or usage drops under the free tier. Every rule that follows
 * these settings (lib/devices, lib/enrollment, GET /settings_enterprise) reads them here.
 */
export async function readEnterpriseSettings(tx: Tx = getDb()): Promise<EnterpriseSettings> {
  const [stored, e] = await Promise.all([storedEnterpriseSettings(tx), entitlement(tx)]);
  return e.enterprise ? stored : { ...DEFAULT_ENTERPRISE_SETTINGS };
}

/** GET /license's `enterprise_settings`: what is stored and whether it is in force. */
export async function enterpriseSettingsState(tx: Tx = getDb()) {
  const [stored, e] = await Promise.all([storedEnterpriseSettings(tx), entitlement(tx)]);
  return { in_force: e.enterprise, stored };
}

/** PATCH /settings_enterprise (admin). */
export async function patchEnterpriseSettings(actor: Actor, p: EnterpriseSettingsPatch) {
  return transaction(async (tx) => {
    const set: Partial<typeof settings.$inferInsert> = {};
    if (p.admin_device_management !== undefined) set.adminDeviceManagement = p.admin_device_management;
    if (p.client_traffic_policy !== undefined) set.clientTrafficPolicy = p.client_traffic_policy;
    if (p.only_client_activation !== undefined) set.onlyClientActivation = p.only_client_activation;
    await getSettings(tx);
    if (Object.keys(set).length) await tx.update(settings).set(set).where(eq(settings.id, 1));
    const changed = Object.keys(p).filter((k) => p[k as keyof EnterpriseSettingsPatch] !== undefined);
    await recordActivity(tx, actor, { event: "settings_updated_partial", description: `Enterprise settings changed: ${changed.join(", ") || "none"}` });
    return enterpriseSettingsView(await getSettings(tx));
  });
}
