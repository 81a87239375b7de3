import { route } from "@/lib/http/route";
import { listUserDevices } from "@/lib/devices/service";
import { requireUserId } from "@/lib/users/service";

export const GET = route({ access: "self-or-admin", self: "username" }, async ({ params }) =>
  listUserDevices(await requireUserId(params.username)),
);
