import { route } from "@/lib/http/route";
import { ldapStatus } from "@/lib/ldap/service";

export const GET = route({ access: "admin" }, async () => ldapStatus());
