import { boolean, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** The single settings row (id = 1). Later domains add their columns here. */
export const settings = pgTable("settings", {
  id: integer("id").primaryKey().default(1),
  instanceName: text("instance_name").notNull().default("Defguard"),
  mainLogoUrl: text("main_logo_url").notNull().default(""),
  navLogoUrl: text("nav_logo_url").notNull().default(""),
  wireguardEnabled: boolean("wireguard_enabled").notNull().default(true),
  webhooksEnabled: boolean("webhooks_enabled").notNull().default(true),
  workerEnabled: boolean("worker_enabled").notNull().default(true),
  openidEnabled: boolean("openid_enabled").notNull().default(true),
  // SMTP (Settings → SMTP). The password is AES-256-GCM encrypted with the instance key.
  smtpServer: text("smtp_server"),
  smtpPort: integer("smtp_port"),
  /** "none" | "starttls" | "implicit_tls" */
  smtpEncryption: text("smtp_encryption").notNull().default("starttls"),
  smtpUser: text("smtp_user"),
  smtpPasswordEnc: text("smtp_password_enc"),
  smtpSender: text("smtp_sender"),
  /** Require every user to have MFA: users without it must set it up at sign-in first. */
  requireMfa: boolean("require_mfa").notNull().default(false),
  // Gateway notifications (Settings → Gateway notifications).
  gatewayDisconnectNotifications: boolean("gateway_disconnect_notifications").notNull().default(false),
  /** Minutes a gateway must stay disconnected before admins are told. */
  gatewayInactivityThreshold: integer("gateway_inactivity_threshold").notNull().default(5),
  gatewayReconnectNotifications: boolean("gateway_reconnect_notifications").notNull().default(false),
  /** Set when first-start bootstrap (admin group + admin user) has run. */
  initializedAt: timestamp("initialized_at", { withTimezone: true }),
});
