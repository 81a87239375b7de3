import { z } from "zod";
import { OPENID_USERNAME_HANDLING } from "../settings/schema";
import { requiredOrType, V, httpUrlSchema } from "../validation";

/** The provider presets of Settings → OpenID (defguard's names; "Custom" is any other issuer). */
export const PROVIDER_PRESETS = ["Google", "Microsoft", "Okta", "JumpCloud", "Custom"] as const;
export type ProviderPreset = (typeof PROVIDER_PRESETS)[number];
/** Presets whose directory the console can synchronise. */
export const SYNC_PROVIDERS: readonly ProviderPreset[] = ["Google", "Microsoft", "Okta", "JumpCloud"];
export const SYNC_TARGETS = ["all", "users", "groups"] as const;
export const SYNC_BEHAVIORS = ["keep", "disable", "delete"] as const;

/** Issuer URL a preset fills in (placeholders in angle brackets are for the admin to replace). */
export const PRESET_BASE_URL: Record<ProviderPreset, string> = {
  Google: "https://accounts.google.com",
  Microsoft: "https://login.microsoftonline.com/<TENANT_ID>/v2.0",
  Okta: "https://<YOUR_OKTA_DOMAIN>",
  JumpCloud: "https://oauth.id.jumpcloud.com/",
  Custom: "",
};

const bool = z.boolean({ error: V.invalidType });
/** Optional text: "" and null mean unset. */
const optText = (max: number) =>
  z
    .string({ error: V.invalidType })
    .trim()
    .max(max, { error: V.tooLong })
    .nullish()
    .transform((v) => (v ? v : null));
/** Write-only secret: "" or omitted keeps the stored one. */
const secret = (max: number) =>
  z
    .string({ error: V.invalidType })
    .max(max, { error: V.tooLong })
    .nullish()
    .transform((v) => (v && v.trim() ? v.trim() : null));

const httpUrl = httpUrlSchema();

const optEmail = z
  .string({ error: V.invalidType })
  .trim()
  .max(254, { error: V.tooLong })
  .refine((v) => v === "" || z.email().safeParse(v).success, { error: V.invalidEmail })
  .nullish()
  .transform((v) => (v ? v : null));

const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]{1,64}$/;

/**
 * POST /openid/provider: defguard 1.6's AddProviderData plus our `scopes` and
 * `use_openid_for_client_mfa`. Secrets (client secret, Google key, Okta JWK, JumpCloud key)
 * are write-only: "" or omitted keeps what is stored.
 */
export const providerSchema = z
  .object({
    name: z.enum(PROVIDER_PRESETS, { error: V.invalidOption }),
    base_url: httpUrl,
    client_id: z.string(requiredOrType).trim().min(1, { error: V.required }).max(512, { error: V.tooLong }),
    client_secret: secret(2048),
    display_name: optText(64),
    scopes: z
      .union([z.string({ error: V.invalidType }), z.array(z.string({ error: V.invalidType }))], { error: V.invalidType })
      .optional()
      .transform((v) => {
        if (v === undefined) return ["openid", "email", "profile"];
        const list = (typeof v === "string" ? v.split(/[\s,]+/) : v).map((s) => s.trim()).filter(Boolean);
        return [...new Set(["openid", ...list])];
      })
      .refine((l) => l.length <= 20 && l.every((s) => SCOPE.test(s)), { error: V.forbiddenChars }),
    admin_email: optEmail,
    google_service_account_email: optEmail,
    google_service_account_key: secret(16_384),
    directory_sync_enabled: bool.default(false),
    directory_sync_interval: z
      .number({ error: V.invalidNumber })
      .int({ error: V.invalidNumber })
      .min(60, { error: "minValue" })
      .max(2_592_000, { error: "maxValue" })
      .default(600),
    directory_sync_user_behavior: z.enum(SYNC_BEHAVIORS, { error: V.invalidOption }).default("keep"),
    directory_sync_admin_behavior: z.enum(SYNC_BEHAVIORS, { error: V.invalidOption }).default("keep"),
    directory_sync_target: z.enum(SYNC_TARGETS, { error: V.invalidOption }).default("all"),
    create_account: bool.default(true),
    username_handling: z.enum(OPENID_USERNAME_HANDLING, { error: V.invalidOption }).default("RemoveForbidden"),
    okta_private_jwk: secret(16_384),
    okta_dirsync_client_id: optText(512),
    /** Comma-separated group names (defguard's form); an array is taken as well. */
    directory_sync_group_match: z
      .union([z.string({ error: V.invalidType }), z.array(z.string({ error: V.invalidType }))], { error: V.invalidType })
      .nullish()
      .transform((v) => [...new Set((typeof v === "string" ? v.split(",") : (v ?? [])).map((s) => s.trim()).filter(Boolean))])
      .refine((l) => l.length <= 200 && l.every((s) => s.length <= 256), { error: V.tooLong }),
    jumpcloud_api_key: secret(1024),
    prefetch_users: bool.default(false),
    use_openid_for_client_mfa: bool.default(false),
  })
  .superRefine((v, ctx) => {
    if (!v.directory_sync_enabled) return;
    if (v.name === "Google" && !v.admin_email) ctx.addIssue({ code: "custom", path: ["admin_email"], message: V.required });
    if (v.name === "Okta" && !v.okta_dirsync_client_id) ctx.addIssue({ code: "custom", path: ["okta_dirsync_client_id"], message: V.required });
  });
export type ProviderInput = z.infer<typeof providerSchema>;
export type ProviderFormValues = z.input<typeof providerSchema>;

/** POST /openid/callback: what the provider sent back to the callback page. */
export const callbackSchema = z.object({
  code: z.string(requiredOrType).min(1, { error: V.required }).max(4096, { error: V.tooLong }),
  state: z.string(requiredOrType).min(1, { error: V.required }).max(1024, { error: V.tooLong }),
  /** RFC 9207 issuer identifier, when the provider sends one. */
  iss: z.string({ error: V.invalidType }).max(2048, { error: V.tooLong }).optional(),
});
export type CallbackInput = z.infer<typeof callbackSchema>;
