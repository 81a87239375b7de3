/**
 * Device form rules for the browser, with the messages of lib/devices/schema.ts (keys under
 * `validation.`). That module checks keys with node:crypto, which the browser has not; the
 * key rule here is the same text rule (isValidKey).
 */
import { z } from "zod";
import { isValidKey } from "./wg-keys";

export const deviceName = z
  .string()
  .trim()
  .min(1, { error: "required" })
  .max(64, { error: "tooLong" })
  .regex(/^[^<>\p{Cc}]+$/u, { error: "forbiddenChars" });

export const description = z.string().max(512, { error: "tooLong" });

export const publicKey = z.string().trim().min(1, { error: "required" }).refine(isValidKey, { error: "invalidKey" });

export type KeyMethod = "generate" | "own";

/** Name, description, and how the key comes: made here, or the user's own public key. */
export const addDeviceSchema = z
  .object({
    name: deviceName,
    description,
    method: z.enum(["generate", "own"]),
    wireguard_pubkey: z.string(),
  })
  .superRefine((v, ctx) => {
    if (v.method !== "own") return;
    const r = publicKey.safeParse(v.wireguard_pubkey);
    if (!r.success) ctx.addIssue({ code: "custom", path: ["wireguard_pubkey"], message: r.error.issues[0].message });
  });
export type AddDeviceValues = z.infer<typeof addDeviceSchema>;

export const editDeviceSchema = z.object({ name: deviceName, description, wireguard_pubkey: publicKey });
export type EditDeviceValues = z.infer<typeof editDeviceSchema>;
