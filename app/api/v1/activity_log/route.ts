import { route } from "@/lib/http/route";
import { activityQuerySchema } from "@/lib/activity/schema";
import { listActivity } from "@/lib/activity/service";

/** Admins see every event; other users see their own. */
export const GET = route({ access: "user", query: activityQuerySchema }, async ({ query, caller }) =>
  listActivity(query, { userId: caller!.user.id, isAdmin: caller!.isAdmin }),
);
