"use client";

import { useEffect, useState } from "react";
import { useRouter } from "next/navigation";
import { useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { browserSupportsWebAuthn } from "@simplewebauthn/browser";
import { KeyRound, LogOut, Mail, ShieldCheck, Smartphone } from "lucide-react";
import { currentUserQuery, useCurrentUser } from "@/components/auth/use-current-user";
import { updateSession } from "@/components/auth/session-store";
import { useLogout } from "@/components/auth/use-logout";
import { LanguageSwitch } from "@/components/i18n/language-switch";
import { useBranding } from "@/components/shell/brand";
import { LoadingScreen } from "@/components/shell/loading-screen";
import { Button } from "@/components/ui/button";
import { InlineError } from "@/components/ui/inline-error";
import { toast } from "@/components/ui/toaster";
import type { CodesBody } from "./api";
import { MethodOption as Option } from "./method-option";
import { EmailSetupDialog } from "./email-setup-dialog";
import { RecoveryCodesDialog } from "./recovery-codes-dialog";
import { AddSecurityKeyDialog } from "./security-key-dialogs";
import { TotpSetupDialog } from "./totp-setup-dialog";

type Choice = "totp" | "webauthn" | "email";


/** The set-up step the instance policy forces on accounts without MFA: choose a method, save the codes, continue. */
export function MfaSetupScreen({ returnTo }: { returnTo: string | null }) {
  const t = useTranslations("mfa.setup");
  const tm = useTranslations("mfa.methods");
  const tt = useTranslations("mfa.settings.toasts");
  const router = useRouter();
  const client = useQueryClient();
  const { name, mainLogo } = useBranding();
  const me = useCurrentUser();
  const logout = useLogout();
  const [dialog, setDialog] = useState<Choice | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const [leaving, setLeaving] = useState(false);
  const [webauthnOk, setWebauthnOk] = useState(true);
  useEffect(() => setWebauthnOk(browserSupportsWebAuthn()), []);

  async function proceed() {
    setLeaving(true);
    const user = await client.fetchQuery({ ...currentUserQuery, staleTime: 0 }).catch(() => me.data);
    if (user) updateSession({ user });
    if (returnTo?.startsWith("/api/")) window.location.assign(returnTo);
    else router.replace(returnTo ?? (user?.is_admin ? "/overview" : "/me"));
  }

  function enabled(what: "totp" | "email" | "key") {
    return (result: CodesBody) => {
      toast.success(tt(`${what}Enabled`));
      if (result.codes && result.codes.length > 0) setCodes(result.codes);
      else void proceed();
    };
  }

  if (me.isPending || leaving) return <LoadingScreen />;

  return (
    <div className="flex min-h-dvh flex-col">
      <header className="flex items-center justify-end gap-2 p-4">
        <LanguageSwitch className="w-36" />
        <Button variant="ghost" data-testid="logout" loading={logout.isPending} onClick={() => logout.mutate()}>
          <LogOut aria-hidden />
          {t("logout")}
        </Button>
      </header>
      <main className="flex flex-1 flex-col items-center px-4 pb-16 pt-4 md:justify-center md:pt-0">
        <div className="w-full max-w-md">
          <div className="mb-8 flex flex-col items-center gap-4 text-center">
            <img src={mainLogo} alt="" className="max-h-[100px] max-w-[250px] object-contain" />
            <p className="text-sm font-medium text-fg-muted">{name}</p>
          </div>
          <div data-testid="mfa-setup" className="rounded-lg border border-border bg-surface p-6 shadow-sm md:p-8">
            <div className="mb-6 flex items-start gap-3">
              <div className="flex size-10 shrink-0 items-center justify-center rounded-lg bg-accent-subtle text-accent">
                <ShieldCheck className="size-5" aria-hidden />
              </div>
              <div className="min-w-0">
                <h1 className="text-xl font-semibold tracking-tight">{t("title")}</h1>
                <p className="mt-1 text-sm text-fg-muted">{t("description", { name })}</p>
              </div>
            </div>
            {me.isError ? (
              <InlineError message={t("loadFailed")} detail={me.error.message} onRetry={() => me.refetch()} retrying={me.isFetching} />
            ) : (
              <>
                <p className="mb-3 text-sm font-medium text-fg">{t("choose")}</p>
                <ul className="flex flex-col gap-2">
                  <Option
                    testId="setup-totp"
                    icon={Smartphone}
                    title={tm("totp")}
                    badge={t("recommended")}
                    description={t("totp")}
                    onClick={() => setDialog("totp")}
                  />
                  <Option
                    testId="setup-webauthn"
                    icon={KeyRound}
                    title={tm("webauthn")}
                    description={webauthnOk ? t("webauthn") : t("webauthnUnsupported")}
                    disabled={!webauthnOk}
                    onClick={() => setDialog("webauthn")}
                  />
                  <Option
                    testId="setup-email"
                    icon={Mail}
                    title={tm("email")}
                    description={t("email")}
                    onClick={() => setDialog("email")}
                  />
                </ul>
                <p className="mt-6 text-xs text-fg-muted">{t("afterwards")}</p>
              </>
            )}
          </div>
        </div>
      </main>
      <TotpSetupDialog open={dialog === "totp"} onOpenChange={(o) => setDialog(o ? "totp" : null)} onEnabled={enabled("totp")} />
      <EmailSetupDialog
        open={dialog === "email"}
        onOpenChange={(o) => setDialog(o ? "email" : null)}
        email={me.data?.email ?? ""}
        onEnabled={enabled("email")}
      />
      <AddSecurityKeyDialog open={dialog === "webauthn"} onOpenChange={(o) => setDialog(o ? "webauthn" : null)} onAdded={enabled("key")} />
      <RecoveryCodesDialog
        codes={codes}
        username={me.data?.username ?? "account"}
        onDone={() => {
          setCodes(null);
          void proceed();
        }}
      />
    </div>
  );
}
