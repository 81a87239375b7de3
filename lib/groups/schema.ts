import { z } from "zod";
import { requiredOrType, usernameSchema, V } from "../validation";

export const groupNameSchema = z
  .string(requiredOrType)
  .trim()
  .min(1, { error: V.required })
  .max(64, { error: V.tooLong })
  .regex(/^[^<>/\\\p{Cc}]+$/u, { error: V.forbiddenChars });

/** POST /group and PUT /group/{originalName} (docs/api.md GroupInfo body). */
export const groupSchema = z.object({
  name: groupNameSchema,
  members: z.array(usernameSchema, { error: V.invalidType }).max(100_000).default([]),
  is_admin: z.boolean({ error: V.invalidType }).default(false),
});
export type GroupInput = z.infer<typeof groupSchema>;

/** PUT /group/{originalName}: members and the admin flag are kept when left out. */
export const groupUpdateSchema = groupSchema.extend({
  members: z.array(usernameSchema, { error: V.invalidType }).max(100_000).optional(),
  is_admin: z.boolean({ error: V.invalidType }).optional(),
});
export type GroupUpdateInput = z.infer<typeof groupUpdateSchema>;

/** POST /group/{group}: add one member. */
export const addMemberSchema = z.object({ username: usernameSchema });

/** POST /groups-assign {groups: [names], users: [ids]}. */
export const groupsAssignSchema = z.object({
  groups: z.array(groupNameSchema, { error: V.invalidType }).min(1, { error: V.required }).max(1000),
  users: z.array(z.number({ error: V.invalidType }).int().positive().max(2_147_483_647), { error: V.invalidType }).min(1, { error: V.required }).max(100_000),
});
