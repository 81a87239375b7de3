import { route } from "@/lib/http/route";
import { getUserInfo } from "@/lib/users/service";

export const GET = route({ access: "user", allowWithoutMfa: true }, async ({ caller }) => getUserInfo(caller!.user.id));
