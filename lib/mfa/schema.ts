import { z } from "zod";
import { requiredOrType, V } from "../validation";

/** A 6-digit code (TOTP or e-mail). */
export const codeSchema = z.object({
  code: z
    .union([z.string(requiredOrType), z.number({ error: V.invalidType })])
    .transform((v) => String(v).replace(/\s+/g, ""))
    .pipe(z.string().regex(/^\d{6}$/, { error: "codeSixDigits" })),
});

/** A recovery code, as printed ("ABCD-EFGH-JKLM"); spaces and dashes are ignored. */
export const recoveryCodeSchema = z.object({
  code: z
    .string(requiredOrType)
    .trim()
    .min(1, { error: V.required })
    .max(64, { error: V.tooLong })
    .transform((v) => v.replace(/[\s-]/g, "").toUpperCase())
    .pipe(z.string().regex(/^[A-Z0-9]{8,32}$/, { error: "invalidRecoveryCode" })),
});

export const MFA_METHODS = ["OneTimePassword", "Webauthn", "Email"] as const;

/** PUT /auth/mfa: switch MFA on with the chosen default method (one already configured). */
export const enableMfaSchema = z.object({
  method: z.enum(MFA_METHODS, { error: V.invalidType }).optional(),
  mfa_method: z.enum(MFA_METHODS, { error: V.invalidType }).optional(),
});

export const securityKeyNameSchema = z
  .string(requiredOrType)
  .trim()
  .min(1, { error: V.required })
  .max(64, { error: V.tooLong })
  .regex(/^[^<>\p{Cc}]+$/u, { error: V.forbiddenChars });

/** POST /auth/webauthn/finish {name, ...credential}: the credential is checked cryptographically. */
export const webauthnFinishSchema = z
  .object({
    name: securityKeyNameSchema,
    id: z.string(requiredOrType).min(1).max(1024),
    rawId: z.string(requiredOrType).min(1).max(1024),
    type: z.literal("public-key", { error: V.invalidType }),
    response: z.object(
      {
        clientDataJSON: z.string(requiredOrType).max(16_384),
        attestationObject: z.string(requiredOrType).max(65_536),
        transports: z.array(z.string().max(32)).max(10).optional(),
      },
      { error: V.required },
    ).passthrough(),
    clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
    authenticatorAttachment: z.string().max(32).optional(),
  })
  .passthrough();

/** POST /auth/webauthn: an assertion. */
export const webauthnAssertionSchema = z
  .object({
    id: z.string(requiredOrType).min(1).max(1024),
    rawId: z.string(requiredOrType).min(1).max(1024),
    type: z.literal("public-key", { error: V.invalidType }),
    response: z.object(
      {
        clientDataJSON: z.string(requiredOrType).max(16_384),
        authenticatorData: z.string(requiredOrType).max(16_384),
        signature: z.string(requiredOrType).max(16_384),
        userHandle: z.string().max(1024).nullish(),
      },
      { error: V.required },
    ).passthrough(),
    clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
    authenticatorAttachment: z.string().max(32).optional(),
  })
  .passthrough();

export const renameSchema = z.object({ name: securityKeyNameSchema });
