import { actorOf, json, route } from "@/lib/http/route";
import { jobStatus, removeWorker } from "@/lib/provisioning/service";

/** A job's status (the path holds a job id), as defguard answers it. */
export const GET = route({ access: "user", enterprise: true }, async (ctx) => {
  const s = await jobStatus({ userId: ctx.caller!.user.id, isAdmin: ctx.caller!.isAdmin }, ctx.params.id);
  if (s.state === "pending") return json(null);
  if (s.state === "done") return { success: s.success, serial: s.serial, error: s.error };
  return json({ message: s.message, msg: s.message }, { status: 404 });
});

/** Forget a worker (the path holds a worker name). */
export const DELETE = route({ access: "admin", enterprise: true }, async (ctx) => {
  await removeWorker(actorOf(ctx), ctx.params.id);
  return {};
});
