import { z } from "zod";
import { requiredOrType, V } from "../validation";

/** PUT /network/{id}/gateways/sync: automatic drift repair and the propagation alert threshold. */
export const syncSettingsSchema = z.object({
  auto_repair: z.boolean(requiredOrType),
  propagation_alert_ms: z
    .number(requiredOrType)
    .int({ error: V.invalidNumber })
    .min(1, { error: "minValue" })
    .max(3_600_000, { error: "maxValue" }),
});

export type SyncSettingsInput = z.infer<typeof syncSettingsSchema>;
