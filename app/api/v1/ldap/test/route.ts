import { json, route } from "@/lib/http/route";
import { testLdapConnection } from "@/lib/ldap/service";

/** defguard answers 200 {} or 400 {}; ours adds the steps, and on failure {msg} naming what failed. */
export const GET = route({ access: "admin" }, async () => {
  const r = await testLdapConnection();
  // `code` repeats `kind` where the browser client reads a machine-readable reason.
  return json(r.ok ? r : { ...r, code: r.kind }, { status: r.ok ? 200 : 400 });
});
