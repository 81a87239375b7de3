import { actorOf, route } from "@/lib/http/route";
import { badRequest, notFound } from "@/lib/errors";
import { restoreDefaultBranding } from "@/lib/settings/branding";

/** defguard's "restore default branding" of the settings row {id} (only 1 exists): the settings after it. */
export const PUT = route({ access: "admin" }, async (ctx) => {
  const id = ctx.params.id;
  if (!/^\d{1,10}$/.test(id)) throw badRequest("must be a number", "id");
  if (Number(id) !== 1) throw notFound(`no settings with id ${id}`);
  return restoreDefaultBranding(actorOf(ctx));
});
