import { actorOf, route } from "@/lib/http/route";
import { rotateKeys } from "@/lib/oidc/keys";
import { resetProvider } from "@/lib/oidc/provider";

/** POST /oauth/keys/rotate: new signing keys; the old ones stay published until their tokens expired. */
export const POST = route({ access: "admin", fresh: true }, async (ctx) => {
  const out = await rotateKeys(actorOf(ctx));
  resetProvider();
  return out;
});
