import { z } from "zod";
import { requiredOrType, V, httpUrlSchema } from "../validation";

/** An absolute http(s) URL without credentials or fragment (receivers of webhooks and log streams). */
export const deliveryUrl = httpUrlSchema({ fragment: false });

const flag = z.boolean({ error: V.invalidType });

/** POST /webhook and PUT /webhook/{id}: defguard's WebHookData. */
export const webhookSchema = z
  .object({
    url: deliveryUrl,
    description: z.string({ error: V.invalidType }).trim().max(256, { error: V.tooLong }).regex(/^[^<>\p{Cc}]*$/u, { error: V.forbiddenChars }).default(""),
    token: z.string(requiredOrType).min(1, { error: V.required }).max(256, { error: V.tooLong }).regex(/^[^\p{Cc}\s]+$/u, { error: V.forbiddenChars }),
    enabled: flag.default(true),
    on_user_created: flag.default(false),
    on_user_deleted: flag.default(false),
    on_user_modified: flag.default(false),
    on_hwkey_provision: flag.default(false),
  })
  .refine((w) => w.on_user_created || w.on_user_deleted || w.on_user_modified || w.on_hwkey_provision, {
    error: "triggerRequired",
    path: ["on_user_created"],
  });
export type WebhookInput = z.infer<typeof webhookSchema>;

/** POST /webhook/{id} {enabled}. */
export const webhookStateSchema = z.object({ enabled: z.boolean(requiredOrType) });

export const STREAM_TYPES = ["vector_http", "logstash_http"] as const;

const optionalText = (max: number) =>
  z
    .string({ error: V.invalidType })
    .max(max, { error: V.tooLong })
    .nullish()
    .transform((v) => (v && v.trim() ? v : null));

/** POST /activity_log_stream and PUT /activity_log_stream/{id}: defguard's modification request. */
export const logStreamSchema = z.object({
  name: z.string(requiredOrType).trim().min(1, { error: V.required }).max(128, { error: V.tooLong }).regex(/^[^<>\p{Cc}]+$/u, { error: V.forbiddenChars }),
  stream_type: z.enum(STREAM_TYPES, { error: V.invalidOption }),
  stream_config: z.object(
    {
      url: deliveryUrl,
      username: optionalText(128).refine((v) => v === null || !v.includes(":"), { error: V.forbiddenChars }),
      password: optionalText(256),
      cert: optionalText(65536).refine((v) => v === null || /-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----/.test(v), { error: "invalidCertificate" }),
    },
    requiredOrType,
  ),
});
export type LogStreamInput = z.infer<typeof logStreamSchema>;
