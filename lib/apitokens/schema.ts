import { z } from "zod";
import { requiredOrType, V } from "../validation";

/** A name for an API token or an authentication key: 1-64 characters, no markup or controls. */
export const keyNameSchema = z
  .string(requiredOrType)
  .trim()
  .min(1, { error: V.required })
  .max(64, { error: V.tooLong })
  .regex(/^[^<>\p{Cc}]+$/u, { error: V.forbiddenChars });

/** POST /user/{username}/api_token {name}. */
export const apiTokenCreateSchema = z.object({ name: keyNameSchema });

/** POST /user/{username}/api_token/{id}/rename {name} (also used for authentication keys). */
export const keyRenameSchema = z.object({ name: keyNameSchema });

export type ApiTokenInfo = { id: number; name: string; created_at: string };
