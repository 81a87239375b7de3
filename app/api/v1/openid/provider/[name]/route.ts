import { actorOf, route } from "@/lib/http/route";
import { notFound } from "@/lib/errors";
import { providerSchema } from "@/lib/extid/schema";
import { currentProvider, deleteProvider, saveProvider } from "@/lib/extid/service";

export const PUT = route({ access: "admin", enterprise: true, body: providerSchema }, async (ctx) => {
  const { provider } = await currentProvider();
  if (!provider || provider.name !== ctx.params.name) throw notFound(`no OpenID provider named ${ctx.params.name}`);
  return saveProvider(actorOf(ctx), ctx.body);
});

export const DELETE = route({ access: "admin", enterprise: true }, async (ctx) => {
  await deleteProvider(actorOf(ctx), ctx.params.name);
  return {};
});
