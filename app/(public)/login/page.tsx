import { redirect } from "next/navigation";
import { getLocale, getMessages, getTranslations } from "next-intl/server";
import { LocaleSelect } from "@/components/login/locale-select";
import { LoginForm, type LoginTexts } from "@/components/login/login-form";
import { SignInFrame } from "@/components/login/sign-in-frame";
import { MFA_SETUP_PATH } from "@/components/mfa/paths";
import { DEFAULT_MAIN_LOGO, FALLBACK_INSTANCE_NAME } from "@/components/settings/defaults";
import { loadEssentials } from "@/components/shell/essentials";
import { getPageSession, homePath, isSignedIn, safeReturnPath } from "@/lib/auth/page-guard";
import { getProviderRow } from "@/lib/extid/service";
import { LOCALES } from "@/lib/i18n/negotiate";

/** The external provider's button label, or null when none is set (or it cannot be read now). */
async function externalLabel(t: Awaited<ReturnType<typeof getTranslations<"login.external">>>): Promise<string | null> {
  try {
    const row = await getProviderRow();
    if (!row) return null;
    return row.displayName ? t("signInWith", { name: row.displayName }) : t("signInWithProvider");
  } catch {
    return null;
  }
}

/**
 * The sign-in page, rendered on the server with its texts: the browser gets the small form of
 * components/login/login-form.tsx and nothing of the console's client runtime (README,
 * "Console weight").
 */
export default async function LoginPage({ searchParams }: { searchParams: Promise<{ r?: string | string[] }> }) {
  const returnTo = safeReturnPath((await searchParams).r);
  const session = await getPageSession();
  if (isSignedIn(session)) {
    // Signed in, but the instance requires MFA this account does not have yet.
    if (session.policy.requireMfa && !session.user.mfaEnabled) {
      redirect(returnTo ? `${MFA_SETUP_PATH}?r=${encodeURIComponent(returnTo)}` : MFA_SETUP_PATH);
    }
    redirect(returnTo ?? homePath(session));
  }
  const [locale, messages, essentials, t, tv, tr, tx, tl] = await Promise.all([
    getLocale(),
    getMessages(),
    loadEssentials(),
    getTranslations("login"),
    getTranslations("validation"),
    getTranslations("passwordReset"),
    getTranslations("login.external"),
    getTranslations("language"),
  ]);
  const name = essentials?.instance_name || FALLBACK_INSTANCE_NAME;
  const label = await externalLabel(tx);
  const texts: LoginTexts = {
    title: t("title"),
    subtitle: t("subtitle", { name }),
    username: t("username"),
    password: t("password"),
    submit: t("submit"),
    forgot: tr("forgot"),
    required: tv("required"),
    tooLong: tv("tooLong"),
    errors: { badCredentials: t("errors.badCredentials"), locked: t("errors.locked"), disabled: t("errors.disabled"), generic: t("errors.generic") },
    external: label ? { label, or: tx("or"), unavailable: tx("providerUnavailable") } : null,
  };
  const current = locale.split("-")[0];
  return (
    <SignInFrame
      name={name}
      mainLogo={essentials?.main_logo_url || DEFAULT_MAIN_LOGO}
      corner={<LocaleSelect current={current} label={tl("label")} options={LOCALES.map((l) => ({ value: l, label: tl(l) }))} />}
    >
      <LoginForm returnTo={returnTo} texts={texts} locale={locale} messages={messages} />
    </SignInFrame>
  );
}
