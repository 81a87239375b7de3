import { z } from "zod";
import { wireguardKeySchema } from "../devices/schema";
import { requiredOrType, V } from "../validation";

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
