/**
 * Device bodies of the API, and the device forms built from the same field rules. Imported by
 * the browser too, so no Node module may be imported here (tests/schema-imports.test.ts).
 */
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

/** The key as the forms check it: the API's rule, with "required" for an empty field. */
const formKeySchema = z.string().trim().min(1, { error: V.required }).pipe(wireguardKeySchema);

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

/**
 * How an add form gets the device's key: made in the browser ("generate"), the user's own
 * public key ("own", then checked like the API checks it), or made on the device by the
 * defguard CLI ("cli", network devices only).
 */
export const keyMethodSchema = z.enum(["generate", "own", "cli"]);
export type KeyMethod = z.infer<typeof keyMethodSchema>;

function ownKeyRequired(v: { method: KeyMethod; wireguard_pubkey: string }, ctx: z.RefinementCtx) {
  if (v.method !== "own") return;
  const r = formKeySchema.safeParse(v.wireguard_pubkey);
  if (!r.success) ctx.addIssue({ code: "custom", path: ["wireguard_pubkey"], message: r.error.issues[0].message });
}

/** The edit form of a user device (PUT /device/{id}). */
export const editDeviceFormSchema = deviceSchema.extend({ wireguard_pubkey: formKeySchema });

/** The add-device form (POST /device/{username}): name, description and the key's method. */
export const addDeviceFormSchema = deviceSchema
  .pick({ name: true, description: true })
  .extend({ method: keyMethodSchema.exclude(["cli"]), wireguard_pubkey: z.string() })
  .superRefine(ownKeyRequired);

/** The add-network-device form (POST /device/network or start_cli); addresses are checked apart. */
export const addNetworkDeviceFormSchema = networkDeviceCliSchema
  .pick({ name: true, description: true })
  .extend({
    location_id: z.string().min(1, { error: V.required }),
    method: keyMethodSchema,
    wireguard_pubkey: z.string(),
  })
  .superRefine(ownKeyRequired);

/** The edit form of a network device (addresses checked apart); a device waiting for the CLI may stay without a key. */
export const editNetworkDeviceFormSchema = networkDeviceSchema.pick({ name: true, description: true }).extend({ wireguard_pubkey: formKeySchema });
export const editPendingNetworkDeviceFormSchema = editNetworkDeviceFormSchema.extend({
  wireguard_pubkey: z.union([z.literal("").transform(() => null), formKeySchema]),
});
