import { z } from "zod";
import { requiredOrType, usernameSchema, V } from "../validation";

export const groupNameSchema = z
  .string(requiredOrType)
  .trim()
  .min(1, { error: V.required })
  .max(64, { error: V.tooLong })
  .regex(/^[^<>/\\\p{Cc}]+$/u, { error: V.forbiddenChars });

/** POST /group and PUT /group/{originalName} (API.md GroupInfo body). */
export const groupSchema = z.object({
  name: groupNameSchema,
  members: z.array(usernameSchema, { error: V.invalidType }).max(100_000).default([]),
  is_admin: z.boolean({ error: V.invalidType }).default(false),
});
export type GroupInput = z.infer<typeof groupSchema>;

/** POST /group/{group}: add one member. */
export const addMemberSchema = z.object({ username: usernameSchema });

/** POST /groups-assign {groups: [names], users: [ids]}. */
export const groupsAssignSchema = z.object({
  groups: z.array(groupNameSchema, { error: V.invalidType }).min(1, { error: V.required }).max(1000),
  users: z.array(z.number({ error: V.invalidType }).int().positive(), { error: V.invalidType }).min(1, { error: V.required }).max(100_000),
});
