import { z } from "zod";
import { emailSchema, requiredOrType, V } from "../validation";

/** defguard's SmtpEncryption values, as the API sends and takes them. */
export const SMTP_ENCRYPTION = ["None", "StartTls", "ImplicitTls"] as const;
export type SmtpEncryption = (typeof SMTP_ENCRYPTION)[number];

const host = z
  .string(requiredOrType)
  .trim()
  .min(1, { error: V.required })
  .max(253, { error: V.tooLong })
  .regex(/^[A-Za-z0-9.:[\]-]+$/, { error: "invalidHost" });

/** Settings → SMTP. An empty/omitted password keeps the stored one; null clears it. */
export const smtpSettingsSchema = z.object({
  smtp_server: host.nullish(),
  smtp_port: z.number({ error: V.invalidNumber }).int({ error: V.invalidNumber }).min(1, { error: "invalidPort" }).max(65535, { error: "invalidPort" }).nullish(),
  smtp_encryption: z.enum(SMTP_ENCRYPTION, { error: V.invalidOption }),
  smtp_user: z.string({ error: V.invalidType }).max(256, { error: V.tooLong }).nullish(),
  smtp_password: z.string({ error: V.invalidType }).max(1024, { error: V.tooLong }).nullish(),
  smtp_sender: emailSchema.nullish(),
});
export type SmtpSettingsInput = z.infer<typeof smtpSettingsSchema>;

export const testMailSchema = z.object({ to: emailSchema });
