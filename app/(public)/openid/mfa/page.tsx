import { redirect } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { AppError } from "@/lib/errors";
import { mfaAuthorizationUrlForLogin } from "@/lib/extid/clientmfa";
import { AuthFrame } from "@/components/login/login-screen";
import { FormAlert } from "@/components/ui/form-alert";

export const dynamic = "force-dynamic";

type Params = Record<string, string | string[] | undefined>;

/**
 * `/openid/mfa?token=…`: what defguard's desktop client opens in the browser for VPN MFA through
 * the external provider; sends the browser on to the provider's sign-in for that login.
 */
export default async function OpenidMfaPage({ searchParams }: { searchParams: Promise<Params> }) {
  const p = await searchParams;
  const token = typeof p.token === "string" ? p.token : "";
  let url: string;
  try {
    url = await mfaAuthorizationUrlForLogin(token);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    const t = await getTranslations("openidMfaCallback");
    return (
      <AuthFrame>
        <div className="flex flex-col gap-4" data-testid="openid-mfa-error">
          <h1 className="text-xl font-semibold tracking-tight">{t("title")}</h1>
          <FormAlert testId="openid-mfa-message">{err.msg}</FormAlert>
        </div>
      </AuthFrame>
    );
  }
  redirect(url);
}
