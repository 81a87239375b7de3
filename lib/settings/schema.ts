import { z } from "zod";
import { smtpSettingsSchema } from "../mail/schema";
import { emailSchema, requiredOrType, V } from "../validation";

const logoUrl = z
  .string({ error: V.invalidType })
  .trim()
  .max(2048, { error: V.tooLong })
  .refine((v) => v === "" || v.startsWith("/") || /^https?:\/\/[^\s]+$/.test(v), { error: V.invalidUrl });

export const OPENID_USERNAME_HANDLING = ["RemoveForbidden", "ReplaceForbidden", "PruneEmailDomain"] as const;
export const CLIENT_TRAFFIC_POLICY = ["none", "disable_all_traffic", "force_all_traffic"] as const;

const bool = z.boolean({ error: V.invalidType });
/** An optional text setting: null (or "") clears it. */
const text = (max: number) => z.string({ error: V.invalidType }).trim().max(max, { error: V.tooLong }).nullish();
const ldapUrl = text(2048).refine((v) => !v || /^ldaps?:\/\/[^\s]+$/i.test(v), { error: V.invalidUrl });
const names = z.array(z.string({ error: V.invalidType }).trim().min(1, { error: V.required }).max(256, { error: V.tooLong }), { error: V.invalidType }).max(100, { error: V.tooLong });
/** Write-only secret: "" (or omitted) keeps the stored one, null clears it. */
const secret = z.string({ error: V.invalidType }).max(1024, { error: V.tooLong }).nullish();

/**
 * PATCH/PUT /settings with defguard 1.6's field names. Every field is optional (PUT with a
 * missing field leaves it as it is); unknown fields are ignored, since defguard clients send
 * back the whole object they read.
 */
export const settingsPatchSchema = z
  .object({
    // modules
    openid_enabled: bool,
    wireguard_enabled: bool,
    webhooks_enabled: bool,
    worker_enabled: bool,
    // branding
    instance_name: z.string(requiredOrType).trim().min(1, { error: V.required }).max(64, { error: V.tooLong }),
    main_logo_url: logoUrl,
    nav_logo_url: logoUrl,
    // enrollment
    enrollment_vpn_step_optional: bool,
    enrollment_welcome_message: text(100_000),
    enrollment_welcome_email: text(100_000),
    enrollment_welcome_email_subject: text(256),
    enrollment_use_welcome_message_as_email: bool,
    // LDAP
    ldap_url: ldapUrl,
    ldap_bind_username: text(1024),
    ldap_bind_password: secret,
    ldap_group_member_attr: text(256),
    ldap_group_obj_class: text(256),
    ldap_group_search_base: text(1024),
    ldap_groupname_attr: text(256),
    ldap_member_attr: text(256),
    ldap_user_obj_class: text(256),
    ldap_user_auxiliary_obj_classes: names,
    ldap_user_search_base: text(1024),
    ldap_username_attr: text(256),
    ldap_enabled: bool,
    ldap_sync_enabled: bool,
    ldap_is_authoritative: bool,
    ldap_use_starttls: bool,
    ldap_tls_verify_cert: bool,
    ldap_sync_interval: z.number({ error: V.invalidNumber }).int({ error: V.invalidNumber }).min(1, { error: "minValue" }).max(2_592_000, { error: "maxValue" }),
    ldap_uses_ad: bool,
    ldap_user_rdn_attr: text(256),
    ldap_sync_groups: names,
    // external OpenID
    openid_create_account: bool,
    openid_username_handling: z.enum(OPENID_USERNAME_HANDLING, { error: V.invalidOption }),
    // licence
    license: text(16_384),
    // gateway notifications
    gateway_disconnect_notifications_enabled: bool,
    gateway_disconnect_notifications_inactivity_threshold: z
      .number({ error: V.invalidNumber })
      .int({ error: V.invalidNumber })
      .min(1, { error: "minValue" })
      .max(10_080, { error: "maxValue" }),
    gateway_disconnect_notifications_reconnect_notification_enabled: bool,
    // ours: every user must have MFA
    require_mfa: bool,
    // ours: the overview's view when the address names none; where the support bundle is e-mailed
    default_overview_view: z.enum(["grid", "list"], { error: V.invalidOption }),
    support_email: emailSchema.or(z.literal("")).nullish(),
  })
  .extend(smtpSettingsSchema.shape)
  .extend({ smtp_password: secret })
  .partial();
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

/** PATCH /settings_enterprise (defguard's EnterpriseSettings), every field optional. */
export const enterpriseSettingsPatchSchema = z
  .object({
    admin_device_management: bool,
    client_traffic_policy: z.enum(CLIENT_TRAFFIC_POLICY, { error: V.invalidOption }),
    only_client_activation: bool,
  })
  .partial();
export type EnterpriseSettingsPatch = z.infer<typeof enterpriseSettingsPatchSchema>;

/** The licence form of Settings → Enterprise features: one key (checked by the server on save). */
export const licenceFormSchema = z.object({
  license: z.string(requiredOrType).trim().min(1, { error: V.required }).max(16_384, { error: V.tooLong }),
});
export type LicenceForm = z.infer<typeof licenceFormSchema>;

// ---- Settings → Global: logo upload, default overview view, support address (issue 19) ----

export const LOGO_KINDS = ["main", "nav"] as const;
export type LogoKind = (typeof LOGO_KINDS)[number];
/** Largest logo file accepted. */
export const LOGO_MAX_BYTES = 256 * 1024;
/** Largest logo drawn (sign-in logo 250x100 px, navigation logo 100x100 px); raster images above are refused. */
export const LOGO_MAX_PX: Record<LogoKind, { width: number; height: number }> = { main: { width: 250, height: 100 }, nav: { width: 100, height: 100 } };
export const LOGO_TYPES = ["image/png", "image/jpeg", "image/svg+xml"] as const;

/**
 * POST /branding/logo/{kind}: the image as a data URL (`data:image/png;base64,...`). Type, size,
 * dimensions and SVG content are checked by the server (lib/settings/branding.ts).
 */
export const logoUploadSchema = z.object({
  image: z
    .string(requiredOrType)
    .min(1, { error: V.required })
    // 256 KB in base64 plus the data-URL prefix; larger files get their own message from the server.
    .max(2 * 1024 * 1024, { error: V.tooLong }),
});
export type LogoUpload = z.infer<typeof logoUploadSchema>;

export const OVERVIEW_VIEWS = ["grid", "list"] as const;

/** The Support page's address form: where POST /mail/support sends the bundle ("" unsets it). */
export const supportAddressSchema = z.object({ support_email: emailSchema.or(z.literal("")) });
export type SupportAddress = z.infer<typeof supportAddressSchema>;
