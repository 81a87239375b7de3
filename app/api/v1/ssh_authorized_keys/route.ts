import { route } from "@/lib/http/route";
import { authorizedKeysQuerySchema } from "@/lib/authkeys/schema";
import { authorizedKeys } from "@/lib/authkeys/service";

/**
 * For sshd's AuthorizedKeysCommand: the SSH keys of a user and/or a group's members as
 * authorized_keys text. Public, and always 200 (an unknown name gives an empty answer).
 */
export const GET = route({ access: "public", query: authorizedKeysQuerySchema }, async ({ query }) =>
  new Response(await authorizedKeys(query), { headers: { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" } }),
);
