import { z } from "zod";
import { wireguardKeySchema } from "../devices/schema";
import { requiredOrType, V } from "../validation";

/**
 * defguard's MfaMethod as its protobuf enum number (the desktop client sends the number).
 * This console verifies TOTP, e-mail and (for external MFA) OpenID; the mobile-app methods
 * (biometric, mobile approve) are refused as "not available".
 */
export const MFA_METHOD = { TOTP: 0, EMAIL: 1, OIDC: 2, BIOMETRIC: 3, MOBILE_APPROVE: 4 } as const;
export type MfaMethodNumber = (typeof MFA_METHOD)[keyof typeof MFA_METHOD];

/** POST /client-mfa/start {location_id, pubkey, method} (defguard proxy: ClientMfaStartRequest). */
export const clientMfaStartSchema = z.object({
  location_id: z.number(requiredOrType).int({ error: V.invalidNumber }).min(1, { error: V.invalidNumber }).max(2_147_483_647, { error: V.invalidNumber }),
  pubkey: wireguardKeySchema,
  /** Checked by the service, which answers defguard's "invalid MFA method selected". */
  method: z.number(requiredOrType).int({ error: V.invalidNumber }),
});
export type ClientMfaStartInput = z.infer<typeof clientMfaStartSchema>;

/**
 * POST /client-mfa/finish {token, code?} (ClientMfaFinishRequest). `code` is a string in
 * defguard 1.6; older clients sent the TOTP code as a number, which is taken as its digits.
 */
export const clientMfaFinishSchema = z.object({
  token: z.string(requiredOrType).trim().min(1, { error: V.required }).max(256, { error: V.tooLong }),
  code: z
    .union([z.string({ error: V.invalidType }).trim().max(64, { error: V.tooLong }), z.number({ error: V.invalidType }).int({ error: V.invalidNumber }).min(0, { error: V.invalidNumber }).max(99_999_999, { error: V.invalidNumber })], { error: V.invalidType })
    .nullish()
    .transform((v) => (v === null || v === undefined || v === "" ? null : typeof v === "number" ? String(v).padStart(6, "0") : v)),
  auth_pub_key: z.string({ error: V.invalidType }).max(1024, { error: V.tooLong }).nullish(),
});
export type ClientMfaFinishInput = z.infer<typeof clientMfaFinishSchema>;
