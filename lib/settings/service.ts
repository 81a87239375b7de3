import { eq } from "drizzle-orm";
import { getDb, type Tx } from "../db";
import { settings } from "../db/schema";
import { encryptSecret } from "../crypto";
import { recordActivity, type Actor } from "../activity/service";
import type { SettingsPatch } from "./schema";

export type Settings = typeof settings.$inferSelect;

export const DEFAULT_MAIN_LOGO = "/brand/logo-main.svg";
export const DEFAULT_NAV_LOGO = "/brand/logo-nav.svg";

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
  };
}

/** SMTP is usable when a server, port and sender are set. */
export function smtpConfigured(s: Settings): boolean {
  return Boolean(s.smtpServer && s.smtpPort && s.smtpSender);
}

/** GET /settings (admin): everything except secrets, which show only whether they are set. */
export function settingsView(s: Settings) {
  return {
    instance_name: s.instanceName,
    main_logo_url: s.mainLogoUrl,
    nav_logo_url: s.navLogoUrl,
    wireguard_enabled: s.wireguardEnabled,
    webhooks_enabled: s.webhooksEnabled,
    worker_enabled: s.workerEnabled,
    openid_enabled: s.openidEnabled,
    require_mfa: s.requireMfa,
    gateway_disconnect_notifications: s.gatewayDisconnectNotifications,
    gateway_inactivity_threshold: s.gatewayInactivityThreshold,
    gateway_reconnect_notifications: s.gatewayReconnectNotifications,
    smtp_server: s.smtpServer,
    smtp_port: s.smtpPort,
    smtp_encryption: s.smtpEncryption,
    smtp_user: s.smtpUser,
    smtp_password_set: Boolean(s.smtpPasswordEnc),
    smtp_sender: s.smtpSender,
    smtp_configured: smtpConfigured(s),
  };
}

/** PATCH /settings: apply the fields present; an empty smtp_password keeps the stored one. */
export async function patchSettings(tx: Tx, actor: Actor, p: SettingsPatch) {
  const set: Partial<typeof settings.$inferInsert> = {};
  if (p.instance_name !== undefined) set.instanceName = p.instance_name;
  if (p.main_logo_url !== undefined) set.mainLogoUrl = p.main_logo_url;
  if (p.nav_logo_url !== undefined) set.navLogoUrl = p.nav_logo_url;
  if (p.wireguard_enabled !== undefined) set.wireguardEnabled = p.wireguard_enabled;
  if (p.webhooks_enabled !== undefined) set.webhooksEnabled = p.webhooks_enabled;
  if (p.worker_enabled !== undefined) set.workerEnabled = p.worker_enabled;
  if (p.openid_enabled !== undefined) set.openidEnabled = p.openid_enabled;
  if (p.require_mfa !== undefined) set.requireMfa = p.require_mfa;
  if (p.gateway_disconnect_notifications !== undefined) set.gatewayDisconnectNotifications = p.gateway_disconnect_notifications;
  if (p.gateway_inactivity_threshold !== undefined) set.gatewayInactivityThreshold = p.gateway_inactivity_threshold;
  if (p.gateway_reconnect_notifications !== undefined) set.gatewayReconnectNotifications = p.gateway_reconnect_notifications;
  if (p.smtp_server !== undefined) set.smtpServer = p.smtp_server || null;
  if (p.smtp_port !== undefined) set.smtpPort = p.smtp_port ?? null;
  if (p.smtp_encryption !== undefined) set.smtpEncryption = p.smtp_encryption;
  if (p.smtp_user !== undefined) set.smtpUser = p.smtp_user || null;
  if (p.smtp_sender !== undefined) set.smtpSender = p.smtp_sender || null;
  if (p.smtp_password === null) set.smtpPasswordEnc = null;
  else if (p.smtp_password) set.smtpPasswordEnc = encryptSecret(p.smtp_password);
  await getSettings(tx);
  if (Object.keys(set).length) await tx.update(settings).set(set).where(eq(settings.id, 1));
  const changed = Object.keys(p).filter((k) => k !== "smtp_password" || p.smtp_password !== undefined);
  await recordActivity(tx, actor, { event: "settings_changed", description: `Settings changed: ${changed.join(", ") || "none"}` });
  return settingsView(await getSettings(tx));
}
