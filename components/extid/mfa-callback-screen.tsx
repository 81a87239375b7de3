"use client";

import { useEffect, useRef, useState } from "react";
import { useTranslations } from "next-intl";
import { CircleCheck } from "lucide-react";
import { api, ApiBadRequestError } from "@/lib/api/client";
import { AuthFrame } from "@/components/login/login-screen";
import { FormAlert } from "@/components/ui/form-alert";
import { Spinner } from "@/components/ui/spinner";

/**
 * `/openid/mfa/callback`: where the external provider sends the browser back during a desktop
 * client's VPN MFA (location MFA "external"). Posts {code, state} to /openid/mfa/callback and
 * says whether the connection is confirmed; the desktop client then finishes by itself.
 */
export function MfaCallbackScreen({ params }: { params: { code?: string; state?: string; iss?: string; error?: string; error_description?: string } }) {
  const t = useTranslations("openidMfaCallback");
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<{ location: string; device: string } | null>(null);
  const sent = useRef(false);

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
    api
      .post<{ location: string; device: string }>("/openid/mfa/callback", { code: params.code, state: params.state, ...(params.iss ? { iss: params.iss } : {}) })
      .then(setDone)
      .catch((err: unknown) => setError(err instanceof ApiBadRequestError ? err.msg : String((err as Error).message ?? err)));
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  return (
    <AuthFrame>
      {done ? (
        <div className="flex flex-col gap-3" data-testid="openid-mfa-done" role="status">
          <h1 className="flex items-center gap-2 text-xl font-semibold tracking-tight">
            <CircleCheck className="size-5 text-success" aria-hidden />
            {t("doneTitle")}
          </h1>
          <p className="text-sm">{t("done", { device: done.device, location: done.location })}</p>
          <p className="text-xs text-fg-muted">{t("closeHint")}</p>
        </div>
      ) : error ? (
        <div className="flex flex-col gap-4" data-testid="openid-mfa-error">
          <h1 className="text-xl font-semibold tracking-tight">{t("title")}</h1>
          <FormAlert testId="openid-mfa-message">{error}</FormAlert>
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
