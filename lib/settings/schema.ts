import { z } from "zod";
import { smtpSettingsSchema } from "../mail/schema";
import { requiredOrType, V } from "../validation";

const logoUrl = z
  .string({ error: V.invalidType })
  .trim()
  .max(2048, { error: V.tooLong })
  .refine((v) => v === "" || v.startsWith("/") || /^https?:\/\/[^\s]+$/.test(v), { error: V.invalidUrl });

/** PATCH/PUT /settings: every field optional; unknown fields are ignored (defguard clients send more). */
export const settingsPatchSchema = z
  .object({
    instance_name: z.string(requiredOrType).trim().min(1, { error: V.required }).max(64, { error: V.tooLong }),
    main_logo_url: logoUrl,
    nav_logo_url: logoUrl,
    wireguard_enabled: z.boolean({ error: V.invalidType }),
    webhooks_enabled: z.boolean({ error: V.invalidType }),
    worker_enabled: z.boolean({ error: V.invalidType }),
    openid_enabled: z.boolean({ error: V.invalidType }),
    require_mfa: z.boolean({ error: V.invalidType }),
    gateway_disconnect_notifications: z.boolean({ error: V.invalidType }),
    gateway_inactivity_threshold: z.number({ error: V.invalidNumber }).int({ error: V.invalidNumber }).min(1, { error: "minValue" }).max(10_080, { error: "maxValue" }),
    gateway_reconnect_notifications: z.boolean({ error: V.invalidType }),
  })
  .extend(smtpSettingsSchema.shape)
  .partial();
export type SettingsPatch = z.infer<typeof settingsPatchSchema>;
