import { route } from "@/lib/http/route";
import { outdatedComponents } from "@/lib/platform/unbuilt";

export const GET = route({ access: "admin" }, async () => outdatedComponents());
