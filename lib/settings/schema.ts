import { z } from "zod";
import { smtpSettingsSchema } from "../mail/schema";
import { requiredOrType, V } from "../validation";

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
