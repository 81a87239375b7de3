import { z } from "zod";
import { wireguardKeySchema } from "../devices/schema";
import { isValidKey } from "../wireguard/key-format";
import { emailSchema, passwordSchema, phoneSchema, requiredOrType, V } from "../validation";

/** An enrolment token as sent by the client (`dg`, the desktop client, the enrolment page). */
const token = z.string(requiredOrType).trim().min(1, { error: V.required }).max(256, { error: V.tooLong });

/** POST /enrollment/start {token} (defguard proxy: EnrollmentStartRequest). */
export const enrollmentStartSchema = z.object({ token });
export type EnrollmentStartInput = z.infer<typeof enrollmentStartSchema>;

/**
 * POST /enrollment/create_device {name, pubkey, token?} (defguard proxy: NewDevice). `dg` sends
 * an empty name (a network device already has one) and no token (the session cookie of
 * /enrollment/start carries it).
 */
export const enrollmentCreateDeviceSchema = z.object({
  name: z.string({ error: V.invalidType }).max(64, { error: V.tooLong }).nullish(),
  pubkey: wireguardKeySchema,
  token: token.nullish().transform((v) => v || null),
});
export type EnrollmentCreateDeviceInput = z.infer<typeof enrollmentCreateDeviceSchema>;

const bool = z.boolean({ error: V.invalidType });

/**
 * POST /user/{username}/start_enrollment and /start_desktop (defguard StartEnrollmentRequest):
 * e-mail the token when asked, to `email` (start_desktop: the user's own address by default).
 */
export const startUserEnrollmentSchema = z.object({
  send_enrollment_notification: bool.optional().default(false),
  email: emailSchema.nullish().transform((v) => v || null),
});
export type StartUserEnrollmentInput = z.infer<typeof startUserEnrollmentSchema>;

/** POST /enrollment/activate_user {phone_number, password} (defguard proxy: ActivateUserRequest). */
export const activateUserSchema = z.object({
  phone_number: phoneSchema,
  password: passwordSchema,
  token: token.nullish().transform((v) => v || null),
});
export type ActivateUserInput = z.infer<typeof activateUserSchema>;

/** POST /enrollment/network_info {pubkey} (defguard proxy: ExistingDevice). */
export const networkInfoSchema = z.object({
  pubkey: wireguardKeySchema,
  token: token.nullish().transform((v) => v || null),
});
export type NetworkInfoInput = z.infer<typeof networkInfoSchema>;

/** POST /poll {token} (defguard proxy: InstanceInfoRequest). */
export const pollSchema = z.object({ token });

/** POST /password-reset/request {email} (defguard proxy: PasswordResetInitializeRequest). */
export const passwordResetRequestSchema = z.object({ email: emailSchema });
/** POST /password-reset/start {token} (PasswordResetStartRequest). */
export const passwordResetStartSchema = z.object({ token });
/** POST /password-reset/reset {password} (PasswordResetRequest); the token comes from the session cookie. */
export const passwordResetResetSchema = z.object({
  password: passwordSchema,
  token: token.nullish().transform((v) => v || null),
});

/**
 * POST /mail/test_welcome {to, subject?, content}: the welcome e-mail as drafted on the
 * enrolment settings page (Markdown), sent to `to` with the sender's own details filled in.
 */
export const welcomeTestSchema = z.object({
  to: emailSchema,
  subject: z.string({ error: V.invalidType }).trim().max(256, { error: V.tooLong }).nullish(),
  content: z.string(requiredOrType).max(100_000, { error: V.tooLong }),
});
export type WelcomeTestInput = z.infer<typeof welcomeTestSchema>;

/**
 * defguard's MfaMethod for the enrolment MFA set-up: the proxy reads it as the enum's name
 * ("Totp", "Email"); the number (0, 1) is accepted too.
 */
const codeMfaMethod = z
  .union([z.string({ error: V.invalidType }), z.number({ error: V.invalidType })], { error: V.invalidType })
  .transform((v, ctx) => {
    const m = typeof v === "number" ? ({ 0: "totp", 1: "email" } as Record<number, string>)[v] : v.toLowerCase();
    if (m === "totp" || m === "email") return m;
    ctx.addIssue({ code: "custom", message: V.invalidOption });
    return z.NEVER;
  });

/** POST /enrollment/register-mfa/code/start {method} (defguard proxy: RegisterMfaCodeStartRequest). */
export const registerMfaStartSchema = z.object({ method: codeMfaMethod });
export type RegisterMfaStartInput = z.infer<typeof registerMfaStartSchema>;

/** POST /enrollment/register-mfa/code/finish {code, method} (RegisterMfaCodeFinishRequest). */
export const registerMfaFinishSchema = z.object({
  method: codeMfaMethod,
  code: z.string(requiredOrType).trim().min(1, { error: V.required }).max(16, { error: V.tooLong }),
});
export type RegisterMfaFinishInput = z.infer<typeof registerMfaFinishSchema>;

/** Standard base64 of 32 bytes, with the message defguard's proxy gives for each field. */
const key32 = (message: string) => z.string(requiredOrType).trim().refine(isValidKey, { error: message });

/**
 * POST /enrollment/register_mobile {auth_pub_key, device_pub_key} (defguard proxy:
 * RegisterMobileAuth): defguard's mobile app registers, for the device it just enrolled (its
 * WireGuard key), the Ed25519 key it signs biometric MFA challenges with. Both base64, 32 bytes.
 */
export const registerMobileSchema = z.object({
  auth_pub_key: key32("Invalid biometric public key."),
  device_pub_key: key32("Invalid device public key."),
  token: token.nullish().transform((v) => v || null),
});
export type RegisterMobileInput = z.infer<typeof registerMobileSchema>;
