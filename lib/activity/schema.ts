import { z } from "zod";
import { V } from "../validation";

const list = z
  .union([z.string(), z.array(z.string())])
  .transform((v) => (Array.isArray(v) ? v : [v]).map((s) => s.trim()).filter(Boolean))
  .pipe(z.array(z.string().max(256, { error: V.tooLong })).max(50));

const date = z.coerce.date({ error: "invalidDate" });

/** GET /activity_log query (docs/api.md): array parameters may repeat. */
export const activityQuerySchema = z.object({
  from: date.optional(),
  until: date.optional(),
  username: list.optional(),
  location: list.optional(),
  event: list.optional(),
  module: list.optional(),
  search: z.string().trim().max(256, { error: V.tooLong }).optional(),
  page: z.coerce.number({ error: V.invalidNumber }).int().min(1).max(1_000_000).optional(),
  page_size: z.coerce.number({ error: V.invalidNumber }).int().min(1).max(500).optional(),
});
export type ActivityQuery = z.infer<typeof activityQuerySchema>;
