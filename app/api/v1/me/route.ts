import { route } from "@/lib/http/route";
import { getUserInfo } from "@/lib/users/service";

export const GET = route({ access: "user" }, async ({ caller }) => getUserInfo(caller!.user.id));
