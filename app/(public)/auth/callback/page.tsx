import { CallbackScreen } from "@/components/extid/callback-screen";

type Params = Record<string, string | string[] | undefined>;
const one = (v: string | string[] | undefined) => (typeof v === "string" ? v : undefined);

/** The external OpenID provider's redirect target (`<DEFGUARD_URL>/auth/callback`). */
export default async function OpenidCallbackPage({ searchParams }: { searchParams: Promise<Params> }) {
  const p = await searchParams;
  return <CallbackScreen params={{ code: one(p.code), state: one(p.state), iss: one(p.iss), error: one(p.error), error_description: one(p.error_description) }} />;
}
