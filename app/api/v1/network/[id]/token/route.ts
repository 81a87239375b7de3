import { route } from "@/lib/http/route";
import { tokenFor } from "@/lib/gateways/service";
import { parseId } from "@/lib/validation";

/** The JWT a gateway of this location presents, and the gRPC URL to dial: {token, grpc_url}. */
export const GET = route({ access: "admin" }, async ({ params }) => tokenFor(parseId(params.id)));
