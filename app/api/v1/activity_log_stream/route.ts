import { route } from "@/lib/http/route";
import { activityLogStreams } from "@/lib/platform/unbuilt";

export const GET = route({ access: "admin" }, async () => activityLogStreams());
