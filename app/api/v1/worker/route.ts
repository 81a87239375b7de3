import { route } from "@/lib/http/route";
import { listWorkers } from "@/lib/provisioning/service";

export const GET = route({ access: "admin", enterprise: true }, async () => listWorkers());
