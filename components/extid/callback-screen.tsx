"use client";

import { useEffect, useRef, useState } from "react";
import { useRouter } from "next/navigation";
import { useTranslations } from "next-intl";
import { useQueryClient } from "@tanstack/react-query";
import { apiRequest, ApiBadRequestError, api } from "@/lib/api/client";
import type { LoginSuccess, LoginSuccessBody, MfaRequired } from "@/lib/api/types";
import { currentUserQuery } from "@/components/auth/use-current-user";
import { updateSession } from "@/components/auth/session-store";
import { AuthFrame } from "@/components/login/login-screen";
import { MfaStep } from "@/components/login/mfa-step";
import { MFA_SETUP_PATH } from "@/components/mfa/api";
import { Button } from "@/components/ui/button";
import { FormAlert } from "@/components/ui/form-alert";
import { Spinner } from "@/components/ui/spinner";

type Body = LoginSuccessBody & { mfa_setup_required?: boolean };

/**
 * `/auth/callback`: where the external provider sends the browser back. Posts {code, state}
 * to /openid/callback; then the console as after a password sign-in (the second factor when
 * the account has MFA on), or the reason and a way back to the login page.
 */
export function CallbackScreen({ params }: { params: { code?: string; state?: string; iss?: string; error?: string; error_description?: string } }) {
  const t = useTranslations("openidCallback");
  const router = useRouter();
  const client = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const [mfa, setMfa] = useState<MfaRequired | null>(null);
  const sent = useRef(false);

  function finish(user: LoginSuccess["user"], mfaSetupRequired = false) {
    client.setQueryData(currentUserQuery.queryKey, user);
    updateSession({ user });
    router.replace(mfaSetupRequired ? MFA_SETUP_PATH : user.is_admin ? "/overview" : "/me");
  }

  useEffect(() => {
    if (sent.current) return;
    sent.current = true;
    if (params.error) {
      setError(params.error_description ? `${params.error}: ${params.error_description}` : params.error);
      return;
    }
    if (!params.code || !params.state) {
      setError(t("noCode"));
      return;
    }
    apiRequest<Body | MfaRequired>("POST", "/openid/callback", { code: params.code, state: params.state, ...(params.iss ? { iss: params.iss } : {}) })
      .then((res) => {
        if (res.status === 201) setMfa(res.data as MfaRequired);
        else {
          const body = res.data as LoginSuccess & { mfa_setup_required?: boolean };
          finish(body.user, body.mfa_setup_required === true);
        }
      })
      .catch((err: unknown) => setError(err instanceof ApiBadRequestError ? err.msg : String((err as Error).message ?? err)));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  function backToLogin() {
    if (mfa) api.post("/auth/logout").catch(() => undefined);
    router.replace("/login");
  }

  return (
    <AuthFrame>
      {mfa ? (
        <MfaStep methods={mfa} onBack={backToLogin} onSignedIn={(body) => finish(body.user)} />
      ) : error ? (
        <div className="flex flex-col gap-4" data-testid="openid-callback-error">
          <h1 className="text-xl font-semibold tracking-tight">{t("title")}</h1>
          <FormAlert testId="openid-callback-message">{error}</FormAlert>
          <Button onClick={backToLogin} data-testid="openid-callback-back">
            {t("back")}
          </Button>
        </div>
      ) : (
        <div className="flex flex-col items-center gap-3 py-6 text-sm text-fg-muted" role="status">
          <Spinner />
          {t("working")}
        </div>
      )}
    </AuthFrame>
  );
}
