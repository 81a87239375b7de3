import { z } from "zod";
import { emailSchema, passwordSchema, personNameSchema, phoneSchema, requiredOrType, usernameSchema, V } from "../validation";

/** POST /user (docs/api.md). Without a password the user is created for enrollment. */
export const createUserSchema = z.object({
  username: usernameSchema,
  first_name: personNameSchema,
  last_name: personNameSchema,
  email: emailSchema,
  phone: phoneSchema,
  password: passwordSchema.nullish(),
});
export type CreateUserInput = z.infer<typeof createUserSchema>;

/**
 * PUT /user/{username}: the UserInfo fields a person can change. Fields only an admin may
 * change (username, email, is_active, groups) are checked in the service.
 */
export const updateUserSchema = z.object({
  username: usernameSchema,
  first_name: personNameSchema,
  last_name: personNameSchema,
  email: emailSchema,
  phone: phoneSchema,
  is_active: z.boolean({ error: V.invalidType }).optional(),
  groups: z.array(z.string({ error: V.invalidType }).max(64, { error: V.tooLong }), { error: V.invalidType }).max(1000).optional(),
});
export type UpdateUserInput = z.infer<typeof updateUserSchema>;

export const usernameAvailableSchema = z.object({ username: usernameSchema });

export const changeOwnPasswordSchema = z.object({
  old_password: z.string(requiredOrType).min(1, { error: V.required }).max(1024, { error: V.tooLong }),
  new_password: passwordSchema,
});

export const setPasswordSchema = z.object({ new_password: passwordSchema });

export const resetPasswordSchema = z.object({
  token: z.string(requiredOrType).min(16, { error: V.required }).max(256, { error: V.tooLong }),
  password: passwordSchema,
});

/** GET /user: without `page` the full list comes back (API compatibility). */
export const listUsersQuerySchema = z.object({
  search: z.string().trim().max(256, { error: V.tooLong }).optional(),
  filter: z.enum(["all", "admins", "users"], { error: V.invalidType }).optional(),
  page: z.coerce.number({ error: V.invalidNumber }).int().min(1).max(1_000_000).optional(),
  page_size: z.coerce.number({ error: V.invalidNumber }).int().min(1).max(1000).optional(),
  sort: z.enum(["username", "name", "-username", "-name"], { error: V.invalidType }).optional(),
});
export type ListUsersQuery = z.infer<typeof listUsersQuerySchema>;
