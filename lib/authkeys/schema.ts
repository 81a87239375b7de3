import { z } from "zod";
import { requiredOrType, V } from "../validation";
import { keyNameSchema } from "../apitokens/schema";

export const AUTH_KEY_TYPES = ["ssh", "gpg"] as const;
export type AuthKeyType = (typeof AUTH_KEY_TYPES)[number];

/** POST /user/{username}/auth_key {name, key, key_type}: the key itself is parsed by the service. */
export const authKeyCreateSchema = z.object({
  name: keyNameSchema,
  key_type: z.enum(AUTH_KEY_TYPES, { error: V.invalidOption }),
  key: z
    .string(requiredOrType)
    .trim()
    .min(1, { error: V.required })
    .max(65_536, { error: V.tooLong }),
});
export type AuthKeyInput = z.infer<typeof authKeyCreateSchema>;

/** GET /ssh_authorized_keys?username=&group= (both optional; none: an empty answer). */
export const authorizedKeysQuerySchema = z.object({
  username: z.string({ error: V.invalidType }).max(256, { error: V.tooLong }).optional(),
  group: z.string({ error: V.invalidType }).max(256, { error: V.tooLong }).optional(),
});

/** Item of GET /user/{username}/auth_key (defguard's AuthenticationKeyInfo). */
export interface AuthKeyInfo {
  id: number;
  name: string;
  key_type: AuthKeyType;
  key: string;
  user_id: number;
  yubikey_serial: string | null;
  yubikey_id: number | null;
  yubikey_name: string | null;
}
