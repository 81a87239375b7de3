import { z } from "zod";

/** GET /report/stale_access: how many days without activity make access stale, and the format. */
export const staleAccessQuery = z.object({
  days: z.coerce.number({ message: "days must be a whole number of days" }).int("days must be a whole number of days").min(1, "days must be at least 1").max(3650, "days must be at most 3650").default(90),
  format: z.enum(["json", "csv"], { message: "format must be json or csv" }).default("json"),
});
export type StaleAccessQuery = z.output<typeof staleAccessQuery>;
