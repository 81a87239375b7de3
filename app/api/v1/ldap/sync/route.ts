import { json, route } from "@/lib/http/route";
import { runLdapSync } from "@/lib/ldap/sync";

/** Run the two-way sync now (enterprise); 200 with the summary, or 400 {msg, kind}. */
export const POST = route({ access: "admin", enterprise: true }, async () => {
  const o = await runLdapSync();
  return json(o.ok ? o : { ...o, code: o.kind }, { status: o.ok ? 200 : 400 });
});
