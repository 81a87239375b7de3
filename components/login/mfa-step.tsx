"use client";

import { useEffect, useRef, useState } from "react";
import { useTranslations } from "next-intl";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import type { z } from "zod";
import { ArrowLeft, KeyRound, LifeBuoy, Mail, Smartphone, type LucideIcon } from "lucide-react";
import { browserSupportsWebAuthn, startAuthentication } from "@simplewebauthn/browser";
import { recoveryCodeSchema } from "@/lib/mfa/schema";
import type { LoginSuccess, MfaRequired as MfaMethods } from "@/lib/api/types";
import { mfaApi } from "@/components/mfa/api";
import { CodeForm } from "@/components/mfa/code-form";
import { useMfaErrors } from "@/components/mfa/errors";
import { ResendButton, useCooldown } from "@/components/mfa/resend";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FormAlert } from "@/components/ui/form-alert";
import { Input } from "@/components/ui/input";
import { Spinner } from "@/components/ui/spinner";
import { useSubmit } from "@/components/ui/use-submit";

export type SecondFactor = "totp" | "email" | "webauthn" | "recovery";

const ICONS: Record<SecondFactor, LucideIcon> = { totp: Smartphone, email: Mail, webauthn: KeyRound, recovery: LifeBuoy };

/** The methods the server offered, the default first; the recovery code is always possible. */
export function offeredFactors(m: MfaMethods): SecondFactor[] {
  const list: SecondFactor[] = [];
  if (m.totp_available) list.push("totp");
  if (m.email_available) list.push("email");
  if (m.webauthn_available) list.push("webauthn");
  const preferred: SecondFactor | undefined =
    m.mfa_method === "OneTimePassword" ? "totp" : m.mfa_method === "Email" ? "email" : m.mfa_method === "Webauthn" ? "webauthn" : undefined;
  if (preferred && list.includes(preferred)) list.sort((a, b) => (a === preferred ? -1 : b === preferred ? 1 : 0));
  return [...list, "recovery"];
}

type Done = (body: LoginSuccess) => void;

function TotpForm({ onDone }: { onDone: Done }) {
  const t = useTranslations("login.mfa");
  return (
    <CodeForm
      label={t("totp.label")}
      submitLabel={t("verify")}
      testId="mfa-totp"
      autoFocus
      onSubmit={async (code) => onDone(await mfaApi.verifyTotp(code))}
    />
  );
}

function EmailForm({ onDone }: { onDone: Done }) {
  const t = useTranslations("login.mfa");
  const { keyOf, messageOf } = useMfaErrors();
  const cooldown = useCooldown();
  const [state, setState] = useState<{ kind: "sending" | "sent" | "recent" } | { kind: "failed"; message: string }>({
    kind: "sending",
  });
  const sent = useRef(false);

  async function send(first: boolean) {
    setState({ kind: "sending" });
    try {
      await mfaApi.sendEmailLoginCode();
      setState({ kind: "sent" });
      cooldown.start();
    } catch (err) {
      // A code sent a moment ago (e.g. when coming back to this method) is still good.
      if (keyOf(err) === "tooSoon") {
        setState(first ? { kind: "recent" } : { kind: "failed", message: messageOf(err) });
        cooldown.start();
        return;
      }
      setState({ kind: "failed", message: messageOf(err) });
    }
  }

  // Entering the step sends the code, once.
  useEffect(() => {
    if (sent.current) return;
    sent.current = true;
    void send(true);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  return (
    <div className="flex flex-col gap-4">
      {state.kind === "sending" && (
        <p role="status" className="flex items-center gap-2 text-sm text-fg-muted">
          <Spinner size={14} /> {t("email.sending")}
        </p>
      )}
      {state.kind === "sent" && (
        <FormAlert tone="info" testId="mfa-email-sent">
          {t("email.sent")}
        </FormAlert>
      )}
      {state.kind === "recent" && (
        <FormAlert tone="info" testId="mfa-email-sent">
          {t("email.recent")}
        </FormAlert>
      )}
      {state.kind === "failed" && <FormAlert testId="mfa-email-error">{state.message}</FormAlert>}
      <CodeForm
        label={t("email.label")}
        submitLabel={t("verify")}
        testId="mfa-email"
        autoFocus
        onSubmit={async (code) => onDone(await mfaApi.verifyEmail(code))}
      >
        <ResendButton
          seconds={cooldown.left}
          loading={state.kind === "sending"}
          onClick={() => void send(false)}
          className="self-center"
        />
      </CodeForm>
    </div>
  );
}

function WebauthnForm({ onDone }: { onDone: Done }) {
  const t = useTranslations("login.mfa");
  const { messageOf } = useMfaErrors();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [supported, setSupported] = useState(true);
  useEffect(() => setSupported(browserSupportsWebAuthn()), []);

  async function useKey() {
    setBusy(true);
    setError(null);
    try {
      const optionsJSON = await mfaApi.webauthnStart();
      const assertion = await startAuthentication({ optionsJSON });
      onDone(await mfaApi.webauthnLogin(assertion));
    } catch (err) {
      setError(messageOf(err));
      setBusy(false);
    }
  }

  return (
    <div className="flex flex-col gap-4">
      {!supported && <FormAlert>{t("webauthn.unsupported")}</FormAlert>}
      {error && <FormAlert testId="mfa-webauthn-error">{error}</FormAlert>}
      <div className="flex flex-col items-center gap-3 rounded-md border border-dashed border-border-strong bg-subtle px-4 py-6 text-center">
        <KeyRound className={busy ? "size-8 animate-pulse text-accent" : "size-8 text-fg-muted"} aria-hidden />
        <p className="text-sm text-fg-muted" role={busy ? "status" : undefined}>
          {busy ? t("webauthn.waiting") : t("webauthn.hint")}
        </p>
      </div>
      <Button data-testid="mfa-webauthn-submit" size="lg" className="w-full" loading={busy} disabled={!supported} onClick={useKey}>
        <KeyRound aria-hidden />
        {t("webauthn.submit")}
      </Button>
    </div>
  );
}

type RecoveryIn = z.input<typeof recoveryCodeSchema>;
type RecoveryOut = z.output<typeof recoveryCodeSchema>;

function RecoveryForm({ onDone }: { onDone: Done }) {
  const t = useTranslations("login.mfa");
  const { messageOf } = useMfaErrors();
  const form = useForm<RecoveryIn, unknown, RecoveryOut>({
    resolver: zodResolver(recoveryCodeSchema),
    // On blur only once something was typed (see CodeForm).
    mode: "onSubmit",
    defaultValues: { code: "" },
  });
  const { isSubmitting } = form.formState;
  const { onSubmit: submit, errorOf } = useSubmit(form, {
    // The code as typed: the server ignores dashes, spaces and case.
    mutationFn: () => mfaApi.recovery(form.getValues("code").trim()),
    onSuccess: onDone,
    errorText: messageOf,
    errorField: "code",
  });
  return (
    <form noValidate onSubmit={submit} className="flex flex-col gap-4">
      <Field label={t("recovery.label")} hint={t("recovery.hint")} error={errorOf("code")}>
        <Input
          data-testid="mfa-recovery-input"
          autoComplete="off"
          autoCapitalize="characters"
          spellCheck={false}
          autoFocus
          placeholder="XXXX-XXXX-XXXX"
          className="h-10 font-mono uppercase tracking-wider placeholder:normal-case"
          {...form.register("code", {
            onBlur: (e: { target: { value: string } }) => e.target.value && void form.trigger("code"),
          })}
        />
      </Field>
      <Button data-testid="mfa-recovery-submit" type="submit" size="lg" loading={isSubmitting} className="w-full">
        {t("verify")}
      </Button>
    </form>
  );
}

interface MfaStepProps {
  methods: MfaMethods;
  /** Back to the password form (the waiting session is dropped). */
  onBack: () => void;
  /** A second factor was accepted: the new session is in the cookies. */
  onSignedIn: Done;
}

/** The second sign-in step: the default method's form, links to the other methods and to a recovery code. */
export function MfaStep({ methods, onBack, onSignedIn }: MfaStepProps) {
  const t = useTranslations("login.mfa");
  const factors = offeredFactors(methods);
  const [factor, setFactor] = useState<SecondFactor>(factors[0]);
  const [done, setDone] = useState(false);
  const headingRef = useRef<HTMLHeadingElement>(null);

  function choose(next: SecondFactor) {
    setFactor(next);
    headingRef.current?.focus();
  }

  function finish(body: LoginSuccess) {
    setDone(true);
    onSignedIn(body);
  }

  if (done) {
    return (
      <div data-testid="login-mfa" role="status" className="flex flex-col items-center gap-3 py-8 text-sm text-fg-muted">
        <Spinner size={28} className="text-accent" />
        {t("signingIn")}
      </div>
    );
  }

  const Icon = ICONS[factor];
  const others = factors.filter((f) => f !== factor);
  return (
    <div data-testid="login-mfa" data-method={factor} className="flex flex-col gap-5">
      <div className="flex items-start gap-3">
        <div className="flex size-10 shrink-0 items-center justify-center rounded-lg bg-accent-subtle text-accent">
          <Icon className="size-5" aria-hidden />
        </div>
        <div className="min-w-0">
          <h1 ref={headingRef} tabIndex={-1} className="text-xl font-semibold tracking-tight focus:outline-none">
            {t("title")}
          </h1>
          <p className="mt-1 text-sm text-fg-muted">{t(`${factor}.description`)}</p>
        </div>
      </div>

      {/* Keyed so that each method starts fresh (the e-mail form sends its code on entry). */}
      <div key={factor}>
        {factor === "totp" && <TotpForm onDone={finish} />}
        {factor === "email" && <EmailForm onDone={finish} />}
        {factor === "webauthn" && <WebauthnForm onDone={finish} />}
        {factor === "recovery" && <RecoveryForm onDone={finish} />}
      </div>

      {others.length > 0 && (
        <nav aria-label={t("otherMethods")} className="border-t border-border pt-4">
          <p className="mb-2 text-xs font-medium uppercase tracking-wide text-fg-subtle">{t("otherMethods")}</p>
          <ul className="flex flex-col gap-1">
            {others.map((f) => {
              const OtherIcon = ICONS[f];
              return (
                <li key={f}>
                  <button
                    type="button"
                    data-testid={`mfa-switch-${f}`}
                    onClick={() => choose(f)}
                    className="flex w-full items-center gap-2.5 rounded-md px-2 py-2 text-left text-sm text-accent hover:bg-hover focus-visible:outline-2 focus-visible:outline-ring"
                  >
                    <OtherIcon className="size-4 shrink-0" aria-hidden />
                    {t(`${f}.switch`)}
                  </button>
                </li>
              );
            })}
          </ul>
        </nav>
      )}

      <Button variant="ghost" data-testid="mfa-back" onClick={onBack} className="self-start">
        <ArrowLeft aria-hidden />
        {t("back")}
      </Button>
    </div>
  );
}
