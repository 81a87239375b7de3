"use client";

import { useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { Mail, MailCheck, ShieldCheck, Smartphone } from "lucide-react";
import { api, ApiBadRequestError } from "@/lib/api/client";
import { CodeForm } from "@/components/mfa/code-form";
import { MethodOption } from "@/components/mfa/method-option";
import { CopyButton } from "@/components/mfa/copy-button";
import { useMfaErrors } from "@/components/mfa/errors";
import { RecoveryCodesDialog } from "@/components/mfa/recovery-codes-dialog";
import { groupSecret } from "@/components/mfa/totp-setup-dialog";
import { ResendButton, useCooldown } from "@/components/mfa/resend";
import { Button } from "@/components/ui/button";
import { FormAlert } from "@/components/ui/form-alert";
import { QrCode } from "@/components/ui/qr-code";
import { Skeleton } from "@/components/ui/skeleton";

type Method = "totp" | "email";

/** The proxy API's names of the two methods (defguard's MfaMethod as its clients send it). */
const WIRE: Record<Method, string> = { totp: "Totp", email: "Email" };

/**
 * The answers that mean this account already has MFA: the session was resumed after the step
 * was done once (the codes were shown then). The step is over.
 */
const ALREADY = /^(Method already enabled|Mfa already enabled on the account)$/;
const alreadyOn = (err: unknown) => err instanceof ApiBadRequestError && ALREADY.test(err.msg.replace(/^\w+: /, ""));

/** The authenticator-app link for a secret (RFC 6238 key URI, the form otplib writes too). */
function totpUri(secret: string, issuer: string, login: string): string {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(login)}`;
  return `otpauth://totp/${label}?secret=${secret}&issuer=${encodeURIComponent(issuer)}&algorithm=SHA1&digits=6&period=30`;
}


interface EnrollMfaStepProps {
  login: string;
  email: string;
  instanceName: string;
  /** E-mail codes need SMTP (settings.smtp_configured of the start answer). */
  smtpConfigured: boolean;
  /** MFA is on and the recovery codes were acknowledged. */
  onDone: () => void;
}

/**
 * The enrolment's MFA step (/enroll): an authenticator app (QR code and secret, confirmed with a
 * first code) or e-mail codes (a code to the account's address), through the proxy API's
 * /enrollment/register-mfa/code/start and /finish with the enrolment session. The recovery codes
 * of the answer are shown once, and the step ends when the user confirms they kept them. The
 * pages show the step only when MFA is required (settings.mfa_required: the instance's policy or
 * a location the user may use with internal MFA), so it cannot be skipped.
 */
export function EnrollMfaStep({ login, email, instanceName, smtpConfigured, onDone }: EnrollMfaStepProps) {
  const t = useTranslations("enroll.mfa");
  const { messageOf } = useMfaErrors();
  const [method, setMethod] = useState<Method | null>(null);
  const [codes, setCodes] = useState<string[] | null>(null);
  const cooldown = useCooldown();

  const start = useMutation({
    mutationFn: (m: Method) => api.post<{ totp_secret?: string }>("/enrollment/register-mfa/code/start", { method: WIRE[m] }),
    onSuccess: (_data, m) => {
      if (m === "email") cooldown.start();
    },
    onError: (err) => {
      if (alreadyOn(err)) onDone();
    },
  });

  function choose(m: Method) {
    setMethod(m);
    start.mutate(m);
  }

  async function confirm(code: string) {
    if (!method) return;
    try {
      const r = await api.post<{ recovery_codes: string[] }>("/enrollment/register-mfa/code/finish", { method: WIRE[method], code });
      const list = (r as unknown as { recovery_codes?: string[] }).recovery_codes ?? [];
      if (list.length > 0) setCodes(list);
      else onDone();
    } catch (err) {
      if (alreadyOn(err)) return onDone();
      throw err;
    }
  }

  const secret = method === "totp" ? (start.data as { totp_secret?: string } | undefined)?.totp_secret : undefined;
  const startError = start.isError && !alreadyOn(start.error) ? messageOf(start.error) : null;

  return (
    <div data-testid="enroll-mfa">
      <div className="mb-6 flex items-start gap-3">
        <div className="flex size-10 shrink-0 items-center justify-center rounded-lg bg-accent-subtle text-accent">
          <ShieldCheck className="size-5" aria-hidden />
        </div>
        <div className="min-w-0">
          <h1 className="text-xl font-semibold tracking-tight">{t("title")}</h1>
          <p className="mt-1 text-sm text-fg-muted">{t("text")}</p>
        </div>
      </div>

      {method === null && (
        <>
          <ul className="flex flex-col gap-2">
            <MethodOption testId="enroll-mfa-totp" icon={Smartphone} title={t("totp")} description={t("totpHint")} onClick={() => choose("totp")} />
            <MethodOption
              testId="enroll-mfa-email"
              icon={Mail}
              title={t("email")}
              description={smtpConfigured ? t("emailHint", { email }) : t("emailUnavailable")}
              disabled={!smtpConfigured}
              onClick={() => choose("email")}
            />
          </ul>
          <p className="mt-4 text-xs text-fg-muted">{t("noSkip")}</p>
        </>
      )}

      {method !== null && (
        <div className="flex flex-col gap-5">
          {startError && <FormAlert testId="enroll-mfa-error">{startError}</FormAlert>}
          {method === "totp" && !startError && (
            <div className="flex flex-col gap-3 text-sm">
              <p className="text-fg">{t("scan")}</p>
              {/* Stacked: the public pages' card is narrow whatever the window. */}
              <div className="flex flex-col items-center gap-4">
                {secret ? (
                  <QrCode value={totpUri(secret, instanceName, login)} label={t("qrAlt")} tooLong={t("qrTooLong")} size={176} data-testid="enroll-mfa-qr" />
                ) : (
                  <Skeleton className="size-44 shrink-0" />
                )}
                <div className="flex w-full min-w-0 flex-col gap-2">
                  <p className="text-xs text-fg-muted">{t("manualEntry")}</p>
                  {secret ? (
                    <code data-testid="enroll-mfa-secret" className="block break-words rounded-md border border-border bg-subtle px-3 py-2 font-mono text-sm leading-relaxed text-fg">
                      {groupSecret(secret)}
                    </code>
                  ) : (
                    <Skeleton className="h-16 w-full" />
                  )}
                  <div>
                    <CopyButton text={secret ?? ""} label={t("copySecret")} disabled={!secret} data-testid="enroll-mfa-copy" />
                  </div>
                </div>
              </div>
            </div>
          )}
          {method === "email" && start.isSuccess && (
            <p role="status" className="flex items-start gap-2 text-sm text-fg" data-testid="enroll-mfa-sent">
              <MailCheck className="mt-0.5 size-4 shrink-0 text-success" aria-hidden />
              <span className="[overflow-wrap:anywhere]">{t("sent", { email })}</span>
            </p>
          )}
          {start.isPending && method === "email" && <Skeleton className="h-5 w-full" />}
          {((method === "totp" && secret) || (method === "email" && start.isSuccess)) && (
            <CodeForm
              label={method === "totp" ? t("codeTotp") : t("codeEmail")}
              submitLabel={t("confirm")}
              testId="enroll-mfa-code"
              autoFocus
              onSubmit={confirm}
            >
              {method === "email" && <ResendButton seconds={cooldown.left} loading={start.isPending} onClick={() => start.mutate("email")} className="w-full" />}
            </CodeForm>
          )}
          <Button
            type="button"
            variant="ghost"
            onClick={() => {
              setMethod(null);
              start.reset();
            }}
            data-testid="enroll-mfa-back"
          >
            {t("other")}
          </Button>
        </div>
      )}

      <RecoveryCodesDialog
        codes={codes}
        username={login}
        onDone={() => {
          setCodes(null);
          onDone();
        }}
      />
    </div>
  );
}
