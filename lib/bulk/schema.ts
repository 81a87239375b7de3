import { z } from "zod";
import { requiredOrType, V } from "../validation";
import { groupNameSchema } from "../groups/schema";

/**
 * Bulk actions on users and devices (POST /user/bulk, POST /device/bulk): an action and its
 * objects, given either as ids (a selection) or as the list filter they were selected with
 * ("select all N matching", resolved on the server when the action runs). Exactly one of the two.
 */

/** Most objects one request may name by id (a larger selection goes by filter). */
export const BULK_MAX_IDS = 100_000;

const idsSchema = z
  .array(z.number({ error: V.invalidType }).int({ error: V.invalidNumber }).positive({ error: V.invalidNumber }), { error: V.invalidType })
  .min(1, { error: V.required })
  .max(BULK_MAX_IDS, { error: V.tooLong });

const searchSchema = z.string({ error: V.invalidType }).trim().max(256, { error: V.tooLong }).optional();

export const USER_BULK_ACTIONS = ["disable", "enable", "add_to_groups", "remove_from_groups", "delete", "start_enrollment"] as const;
export type UserBulkAction = (typeof USER_BULK_ACTIONS)[number];

/** The users list's own search and filter (GET /user?search=&filter=). */
export const userBulkFilterSchema = z.object({
  search: searchSchema,
  filter: z.enum(["all", "admins", "users"], { error: V.invalidOption }).optional(),
});
export type UserBulkFilter = z.infer<typeof userBulkFilterSchema>;

function oneSelection(v: { ids?: unknown; filter?: unknown }, ctx: z.RefinementCtx) {
  if ((v.ids === undefined) === (v.filter === undefined)) ctx.addIssue({ code: "custom", message: V.required, path: ["ids"] });
}

export const userBulkSchema = z
  .object({
    action: z.enum(USER_BULK_ACTIONS, { error: V.invalidOption }),
    ids: idsSchema.optional(),
    filter: userBulkFilterSchema.optional(),
    /** add_to_groups / remove_from_groups: the groups (names). */
    groups: z.array(groupNameSchema, { error: V.invalidType }).max(100, { error: V.tooLong }).optional(),
  })
  .superRefine((v, ctx) => {
    oneSelection(v, ctx);
    if ((v.action === "add_to_groups" || v.action === "remove_from_groups") && !v.groups?.length) {
      ctx.addIssue({ code: "custom", message: V.required, path: ["groups"] });
    }
  });
export type UserBulkInput = z.infer<typeof userBulkSchema>;

export const DEVICE_BULK_ACTIONS = ["delete", "move", "regenerate_configs"] as const;
export type DeviceBulkAction = (typeof DEVICE_BULK_ACTIONS)[number];

/**
 * Devices matching a list's filter: their kind (user devices, network devices or both), a
 * location, and a text found (any case) in the name, a location's name, an address, the
 * owner's username or the description — the network devices list's own search.
 */
export const deviceBulkFilterSchema = z.object({
  type: z.enum(["all", "user", "network"], { error: V.invalidOption }).optional(),
  location_id: z.number({ error: V.invalidType }).int({ error: V.invalidNumber }).positive({ error: V.invalidNumber }).optional(),
  search: searchSchema,
});
export type DeviceBulkFilter = z.infer<typeof deviceBulkFilterSchema>;

export const deviceBulkSchema = z
  .object({
    action: z.enum(DEVICE_BULK_ACTIONS, { error: V.invalidOption }),
    ids: idsSchema.optional(),
    filter: deviceBulkFilterSchema.optional(),
    /** move: the location the network devices go to. */
    location_id: z.number(requiredOrType).int({ error: V.invalidNumber }).positive({ error: V.invalidNumber }).optional(),
  })
  .superRefine((v, ctx) => {
    oneSelection(v, ctx);
    if (v.action === "move" && v.location_id === undefined) ctx.addIssue({ code: "custom", message: V.required, path: ["location_id"] });
  });
export type DeviceBulkInput = z.infer<typeof deviceBulkSchema>;

/**
 * POST /device/bulk is also POST /device/{username} for a user named "bulk": a body without
 * `action` that carries a device's fields (deviceSchema: name, wireguard_pubkey) is a device to
 * add, anything else a bulk action (validated, and refused, as one).
 */
export function isDeviceCreationBody(body: unknown): boolean {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
  return !("action" in body) && ("wireguard_pubkey" in body || "name" in body);
}

/** The answer of a bulk action: what ran and on how many objects (those already in the wanted state included). */
export interface BulkResult {
  action: string;
  /** Objects the action was applied to. */
  count: number;
  /** Objects it changed (a disabled user disabled again, a device already in the location, … are not). */
  changed: number;
}
