import { route } from "@/lib/http/route";
import { listAuthKeys } from "@/lib/platform/unbuilt";

export const GET = route({ access: "self-or-admin", self: "username" }, async ({ params }) => listAuthKeys(params.username));
