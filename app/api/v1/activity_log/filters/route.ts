import { route } from "@/lib/http/route";
import { activityFilterValues } from "@/lib/activity/service";

/** Values for the activity log's filter pickers (users, events, modules, locations). */
export const GET = route({ access: "user" }, async ({ caller }) =>
  activityFilterValues({ userId: caller!.user.id, isAdmin: caller!.isAdmin }),
);
