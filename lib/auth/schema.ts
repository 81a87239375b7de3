import { z } from "zod";
import { requiredOrType, V } from "../validation";

/** POST /auth. Login accepts a username or an e-mail; only length is checked here. */
export const loginSchema = z.object({
  username: z.string(requiredOrType).trim().min(1, { error: V.required }).max(254, { error: V.tooLong }),
  password: z.string(requiredOrType).min(1, { error: V.required }).max(1024, { error: V.tooLong }),
});
export type LoginInput = z.infer<typeof loginSchema>;

/** POST /auth/reauth: the password, or a code from the authenticator app. */
export const reauthSchema = z
  .object({
    password: z.string({ error: V.invalidType }).min(1, { error: V.required }).max(1024, { error: V.tooLong }).optional(),
    code: z
      .union([z.string({ error: V.invalidType }), z.number({ error: V.invalidType })])
      .transform((v) => String(v).replace(/\s+/g, ""))
      .pipe(z.string().regex(/^\d{6}$/, { error: "codeSixDigits" }))
      .optional(),
  })
  .superRefine((v, ctx) => {
    if (v.password === undefined && v.code === undefined) ctx.addIssue({ code: "custom", path: ["password"], message: V.required });
  });
export type ReauthInput = z.infer<typeof reauthSchema>;
