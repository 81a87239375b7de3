import { MfaCallbackScreen } from "@/components/extid/mfa-callback-screen";

type Params = Record<string, string | string[] | undefined>;
const one = (v: string | string[] | undefined) => (typeof v === "string" ? v : undefined);

/** The external provider's redirect target for a desktop client's VPN MFA (`<DEFGUARD_URL>/openid/mfa/callback`). */
export default async function OpenidMfaCallbackPage({ searchParams }: { searchParams: Promise<Params> }) {
  const p = await searchParams;
  return <MfaCallbackScreen params={{ code: one(p.code), state: one(p.state), iss: one(p.iss), error: one(p.error), error_description: one(p.error_description) }} />;
}
