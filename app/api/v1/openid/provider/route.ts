import { actorOf, json, route } from "@/lib/http/route";
import { providerSchema } from "@/lib/extid/schema";
import { currentProvider, saveProvider } from "@/lib/extid/service";

/** defguard: 200 {provider, settings} when a provider is set, else 204 (no body). */
export const GET = route({ access: "admin", enterprise: true }, async () => {
  const current = await currentProvider();
  if (!current.provider) return new Response(null, { status: 204, headers: { "cache-control": "no-store" } });
  return current;
});

export const POST = route({ access: "admin", enterprise: true, body: providerSchema }, async (ctx) => json(await saveProvider(actorOf(ctx), ctx.body), { status: 201 }));
