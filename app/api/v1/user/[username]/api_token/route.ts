import { route } from "@/lib/http/route";
import { listApiTokens } from "@/lib/platform/unbuilt";

export const GET = route({ access: "self-or-admin", self: "username" }, async ({ params }) => listApiTokens(params.username));
