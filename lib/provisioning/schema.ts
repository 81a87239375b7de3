import { z } from "zod";
import { requiredOrType, V } from "../validation";

/** POST /worker/job {worker, username}: provision a YubiKey for the user on that worker. */
export const workerJobSchema = z.object({
  worker: z.string(requiredOrType).trim().min(1, { error: V.required }).max(64, { error: V.tooLong }),
  username: z.string(requiredOrType).trim().min(1, { error: V.required }).max(64, { error: V.tooLong }),
});
export type WorkerJobInput = z.infer<typeof workerJobSchema>;
