import { json, route } from "@/lib/http/route";
import { availableUpdate } from "@/lib/platform/unbuilt";

export const GET = route({ access: "admin" }, async () => json(availableUpdate()));
