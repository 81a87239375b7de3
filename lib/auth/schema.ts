import { z } from "zod";
import { requiredOrType, V } from "../validation";

/** POST /auth. Login accepts a username or an e-mail; only length is checked here. */
export const loginSchema = z.object({
  username: z.string(requiredOrType).trim().min(1, { error: V.required }).max(254, { error: V.tooLong }),
  password: z.string(requiredOrType).min(1, { error: V.required }).max(1024, { error: V.tooLong }),
});
export type LoginInput = z.infer<typeof loginSchema>;
