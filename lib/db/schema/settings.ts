import { boolean, check, customType, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";

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
  /** "none" | "starttls" | "implicit_tls" (the API says "None" | "StartTls" | "ImplicitTls") */
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
  // Enrollment (defguard's enrollment_* settings). Null texts mean "the built-in default".
  enrollmentVpnStepOptional: boolean("enrollment_vpn_step_optional").notNull().default(true),
  enrollmentWelcomeMessage: text("enrollment_welcome_message"),
  enrollmentWelcomeEmail: text("enrollment_welcome_email"),
  enrollmentWelcomeEmailSubject: text("enrollment_welcome_email_subject"),
  enrollmentUseWelcomeMessageAsEmail: boolean("enrollment_use_welcome_message_as_email").notNull().default(true),
  // LDAP (stored for the LDAP integration; defaults as in defguard). The bind password is
  // AES-256-GCM encrypted like the SMTP password.
  ldapUrl: text("ldap_url"),
  ldapBindUsername: text("ldap_bind_username").default("cn=admin,dc=example,dc=org"),
  ldapBindPasswordEnc: text("ldap_bind_password_enc"),
  ldapGroupMemberAttr: text("ldap_group_member_attr").default("uniqueMember"),
  ldapGroupObjClass: text("ldap_group_obj_class").default("groupOfUniqueNames"),
  ldapGroupSearchBase: text("ldap_group_search_base").default("ou=groups,dc=example,dc=org"),
  ldapGroupnameAttr: text("ldap_groupname_attr").default("cn"),
  ldapMemberAttr: text("ldap_member_attr").default("memberOf"),
  ldapUserObjClass: text("ldap_user_obj_class").default("inetOrgPerson"),
  ldapUserAuxiliaryObjClasses: text("ldap_user_auxiliary_obj_classes")
    .array()
    .notNull()
    .default(sql`ARRAY['simpleSecurityObject', 'sambaSamAccount']::text[]`),
  ldapUserSearchBase: text("ldap_user_search_base").default("ou=users,dc=example,dc=org"),
  ldapUsernameAttr: text("ldap_username_attr").default("cn"),
  ldapEnabled: boolean("ldap_enabled").notNull().default(false),
  ldapSyncEnabled: boolean("ldap_sync_enabled").notNull().default(false),
  ldapIsAuthoritative: boolean("ldap_is_authoritative").notNull().default(false),
  ldapUseStarttls: boolean("ldap_use_starttls").notNull().default(false),
  ldapTlsVerifyCert: boolean("ldap_tls_verify_cert").notNull().default(true),
  /** Seconds between LDAP synchronisations. */
  ldapSyncInterval: integer("ldap_sync_interval").notNull().default(300),
  ldapUsesAd: boolean("ldap_uses_ad").notNull().default(false),
  ldapUserRdnAttr: text("ldap_user_rdn_attr"),
  ldapSyncGroups: text("ldap_sync_groups").array().notNull().default(sql`'{}'::text[]`),
  // External OpenID sign-in.
  openidCreateAccount: boolean("openid_create_account").notNull().default(true),
  /** "RemoveForbidden" | "ReplaceForbidden" | "PruneEmailDomain" */
  openidUsernameHandling: text("openid_username_handling").notNull().default("RemoveForbidden"),
  /** The licence key as entered (checked by the licence module). */
  license: text("license"),
  // Enterprise settings (GET/PATCH /settings_enterprise).
  adminDeviceManagement: boolean("admin_device_management").notNull().default(false),
  /** "none" | "disable_all_traffic" | "force_all_traffic" */
  clientTrafficPolicy: text("client_traffic_policy").notNull().default("none"),
  onlyClientActivation: boolean("only_client_activation").notNull().default(false),
  // Settings → Global and the Support page (migration 0033).
  /** The overview's view when the address names none: "grid" | "list". */
  defaultOverviewView: text("default_overview_view").notNull().default("grid"),
  /** Where POST /mail/support sends the support bundle; unset = not configured. */
  supportEmail: text("support_email"),
  /** Set when first-start bootstrap (admin group + admin user) has run. */
  initializedAt: timestamp("initialized_at", { withTimezone: true }),
});

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });

/** Uploaded logos (Settings → Global), served by GET /branding/logo/{kind} with an ETag. */
export const brandingLogos = pgTable(
  "branding_logos",
  {
    /** "main" (sign-in page, max 250x100 px) | "nav" (navigation, max 100x100 px) */
    kind: text("kind").primaryKey(),
    contentType: text("content_type").notNull(),
    data: bytea("data").notNull(),
    etag: text("etag").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check("branding_logos_kind_check", sql`${t.kind} in ('main', 'nav')`)],
);
