"use client";

import Link from "next/link";
import { useTranslations } from "next-intl";
import { useEffect, useState } from "react";
import { useMutation } from "@tanstack/react-query";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { z } from "zod";
import { CircleCheck, LinkIcon } from "lucide-react";
import { api, ApiBadRequestError } from "@/lib/api/client";
import { emailSchema, passwordSchema, requiredOrType, V } from "@/lib/validation";
import { AuthFrame } from "@/components/login/login-screen";
import { useValidationMessages } from "@/components/forms/messages";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FormAlert } from "@/components/ui/form-alert";
import { Input } from "@/components/ui/input";
import { useSubmit } from "@/components/ui/use-submit";

const MISMATCH = "mismatch";
const RESET_INVALID = "password reset link is invalid or has expired";

const schema = z
  .object({ password: passwordSchema, confirm: z.string(requiredOrType).min(1, { error: V.required }) })
  .refine((v) => v.password === v.confirm, { path: ["confirm"], error: MISMATCH });
type Values = z.infer<typeof schema>;

const Frame = AuthFrame;

function Outcome({ tone, title, text, testId }: { tone: "success" | "error"; title: string; text: string; testId: string }) {
  const t = useTranslations("passwordReset");
  const Icon = tone === "success" ? CircleCheck : LinkIcon;
  return (
    <div data-testid={testId} className="flex flex-col items-center gap-3 text-center" role={tone === "error" ? "alert" : "status"}>
      <div
        className={
          tone === "success"
            ? "flex size-10 items-center justify-center rounded-lg bg-success-subtle text-success"
            : "flex size-10 items-center justify-center rounded-lg bg-error-subtle text-error"
        }
      >
        <Icon className="size-5" aria-hidden />
      </div>
      <h1 className="text-xl font-semibold tracking-tight">{title}</h1>
      <p className="text-sm text-fg-muted">{text}</p>
      <Button asChild size="lg" className="mt-2 w-full" variant={tone === "success" ? "primary" : "secondary"}>
        <Link href="/login" data-testid="password-reset-login">
          {t("toLogin")}
        </Link>
      </Button>
    </div>
  );
}

/**
 * Without a token: ask for a reset link by e-mail (POST /password-reset/request; the same
 * answer whether or not the address is known).
 */
function RequestLink() {
  const t = useTranslations("passwordReset");
  const { fromKey, fromServer } = useValidationMessages();
  const form = useForm<{ email: string }>({ resolver: zodResolver(z.object({ email: emailSchema })), defaultValues: { email: "" } });
  const [failure, setFailure] = useState<string | null>(null);
  const submit = useSubmit(form, {
    mutationFn: (v) => api.post("/password-reset/request", v),
    errorText: (err) => (err instanceof ApiBadRequestError ? (fromServer(err) ?? err.msg) : t("failed")),
    fields: ["email"],
    // The page says what went wrong itself; success is the "sent" page, not a toast.
    report: (text) => setFailure(text),
  });
  const request = submit.mutation;
  if (request.isSuccess) {
    return (
      <Frame>
        <Outcome tone="success" title={t("sentTitle")} text={t("sentText")} testId="password-reset-sent" />
      </Frame>
    );
  }
  return (
    <Frame>
      <h1 className="mb-1 text-xl font-semibold tracking-tight">{t("requestTitle")}</h1>
      <p className="mb-6 text-sm text-fg-muted">{t("requestText")}</p>
      <form
        noValidate
        onSubmit={(e) => {
          setFailure(null);
          return submit.onSubmit(e);
        }}
        className="flex flex-col gap-4"
        data-testid="password-reset-request-form"
      >
        {failure && <FormAlert>{failure}</FormAlert>}
        <Field label={t("email")} error={fromKey(form.formState.errors.email?.message)}>
          <Input type="email" autoComplete="email" autoFocus data-testid="password-reset-email" {...form.register("email")} />
        </Field>
        <Button type="submit" size="lg" loading={request.isPending} className="mt-2 w-full" data-testid="password-reset-request">
          {t("requestSubmit")}
        </Button>
        <Link href="/login" className="text-center text-sm text-fg-muted hover:text-fg hover:underline">
          {t("backToLogin")}
        </Link>
      </form>
    </Frame>
  );
}

/**
 * The e-mailed reset link: the token opens a reset session (POST /password-reset/start, as
 * defguard's proxy), then a new password twice (POST /password-reset/reset), then on to the
 * login page. Without a token: the request form.
 */
export function PasswordResetScreen({ token }: { token: string }) {
  if (!token) return <RequestLink />;
  return <ResetWithToken token={token} />;
}

function ResetWithToken({ token }: { token: string }) {
  const t = useTranslations("passwordReset");
  const { fromKey, fromServer } = useValidationMessages();
  const form = useForm<Values>({ resolver: zodResolver(schema), mode: "onTouched", defaultValues: { password: "", confirm: "" } });
  const { errors } = form.formState;

  const start = useMutation({ mutationFn: () => api.post("/password-reset/start", { token }) });
  const { mutate: startSession } = start;
  useEffect(() => startSession(), [startSession]);

  const submit = useSubmit(form, {
    mutationFn: (v) => api.post("/password-reset/reset", { password: v.password }),
    errorText: (err) => (err instanceof ApiBadRequestError ? (fromServer(err) ?? err.msg) : t("failed")),
    fields: ["password"],
    // Anything but a refused password is said by the screen itself (an invalid link, a failure line).
    report: () => undefined,
  });
  const reset = submit.mutation;

  const message = (key: string | undefined) => (key === MISMATCH ? t("mismatch") : fromKey(key));
  const invalidLink =
    start.isError ||
    (reset.error instanceof ApiBadRequestError && (reset.error.msg === RESET_INVALID || reset.error.status === 401 || reset.error.field === "token"));

  if (reset.isSuccess) {
    return (
      <Frame>
        <Outcome tone="success" title={t("doneTitle")} text={t("doneText")} testId="password-reset-done" />
      </Frame>
    );
  }
  if (invalidLink) {
    return (
      <Frame>
        <Outcome tone="error" title={t("invalidTitle")} text={t("invalidText")} testId="password-reset-invalid" />
      </Frame>
    );
  }

  const otherError =
    reset.isError && !(reset.error instanceof ApiBadRequestError && reset.error.field === "password")
      ? reset.error instanceof ApiBadRequestError
        ? reset.error.msg
        : t("failed")
      : null;

  return (
    <Frame>
      <h1 className="mb-1 text-xl font-semibold tracking-tight">{t("title")}</h1>
      <p className="mb-6 text-sm text-fg-muted">{t("subtitle")}</p>
      <form
        noValidate
        onSubmit={submit.onSubmit}
        className="flex flex-col gap-4"
        data-testid="password-reset-form"
      >
        {otherError && <FormAlert>{otherError}</FormAlert>}
        <Field label={t("password")} error={message(errors.password?.message)} hint={t("rules")}>
          <Input type="password" autoComplete="new-password" autoFocus data-testid="password-reset-password" {...form.register("password")} />
        </Field>
        <Field label={t("confirm")} error={message(errors.confirm?.message)}>
          <Input type="password" autoComplete="new-password" data-testid="password-reset-confirm" {...form.register("confirm")} />
        </Field>
        <Button type="submit" size="lg" loading={reset.isPending} disabled={!start.isSuccess} className="mt-2 w-full" data-testid="password-reset-submit">
          {t("submit")}
        </Button>
        <Link href="/login" className="text-center text-sm text-fg-muted hover:text-fg hover:underline">
          {t("backToLogin")}
        </Link>
      </form>
    </Frame>
  );
}
