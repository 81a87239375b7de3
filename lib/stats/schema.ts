import { z } from "zod";

/** ?from=<ISO timestamp>: the start of the window (default: one hour ago). */
export const statsQuerySchema = z.object({
  from: z.coerce.date({ error: "invalidDate" }).optional(),
});
