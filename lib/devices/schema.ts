import { z } from "zod";
import { isValidPublicKey } from "../wireguard/key-format";
import { requiredOrType, V } from "../validation";

export const deviceNameSchema = z
  .string(requiredOrType)
  .trim()
  .min(1, { error: V.required })
  .max(64, { error: V.tooLong })
  .regex(/^[^<>\p{Cc}]+$/u, { error: V.forbiddenChars });

export const wireguardKeySchema = z.string(requiredOrType).trim().refine(isValidPublicKey, { error: "invalidKey" });

const description = z
  .string({ error: V.invalidType })
  .max(512, { error: V.tooLong })
  .nullish()
  .transform((v) => (v ? v : null));

/** POST /device/{username} and PUT /device/{id}. */
export const deviceSchema = z.object({
  name: deviceNameSchema,
  wireguard_pubkey: wireguardKeySchema,
  description,
});
export type DeviceInput = z.infer<typeof deviceSchema>;

/** POST /device/network and PUT /device/network/{id}. */
export const networkDeviceSchema = z.object({
  name: deviceNameSchema,
  description,
  location_id: z.number({ error: V.invalidNumber }).int({ error: V.invalidNumber }).positive({ error: V.invalidNumber }),
  assigned_ips: z
    .union([z.string(), z.array(z.string({ error: V.invalidType }))], { error: V.invalidType })
    .transform((v) => (Array.isArray(v) ? v : v.split(",")).map((s) => s.trim()).filter(Boolean))
    .pipe(z.array(z.string()).min(1, { error: V.required }).max(16)),
  wireguard_pubkey: wireguardKeySchema,
});
export type NetworkDeviceInput = z.infer<typeof networkDeviceSchema>;

/**
 * PUT /device/network/{id}: as POST, but the key may be left out (defguard's own edit call sends
 * none): the device keeps its key, and one waiting for the defguard CLI keeps waiting.
 */
export const networkDeviceUpdateSchema = networkDeviceSchema.extend({
  wireguard_pubkey: wireguardKeySchema.nullish().transform((v) => v || null),
});
export type NetworkDeviceUpdateInput = z.infer<typeof networkDeviceUpdateSchema>;

/**
 * POST /device/network/start_cli: a network device whose key pair the defguard CLI (`dg`) makes
 * on the device itself; same fields and rules as POST /device/network without the key.
 */
export const networkDeviceCliSchema = networkDeviceSchema.omit({ wireguard_pubkey: true });
export type NetworkDeviceCliInput = z.infer<typeof networkDeviceCliSchema>;

/** POST /device/network/ip/{location}: check that addresses are valid and free. */
export const validateIpsSchema = z.object({
  ips: z
    .union([z.string(), z.array(z.string({ error: V.invalidType }))], { error: V.invalidType })
    .transform((v) => (Array.isArray(v) ? v : v.split(",")).map((s) => s.trim()).filter(Boolean))
    .pipe(z.array(z.string()).min(1, { error: V.required }).max(16)),
  device_id: z.number().int().positive().optional(),
});
