"use client";

import { useState } from "react";
import { useRouter } from "next/navigation";
import { useTranslations } from "next-intl";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { loginSchema, type LoginInput } from "@/lib/auth/schema";
import { api, apiRequest, ApiBadRequestError } from "@/lib/api/client";
import type { LoginSuccessBody, MfaRequired as MfaMethods, UserInfo } from "@/lib/api/types";
import { currentUserQuery } from "@/components/auth/use-current-user";
import { updateSession } from "@/components/auth/session-store";
import { useValidationMessages } from "@/components/forms/messages";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { MfaRequired } from "./mfa-required";

type LoginOutcome = { kind: "signed_in"; user: UserInfo; url?: string } | { kind: "mfa"; methods: MfaMethods };

async function signIn(input: LoginInput): Promise<LoginOutcome> {
  const res = await apiRequest<LoginSuccessBody | MfaMethods>("POST", "/auth", input);
  if (res.status === 201) return { kind: "mfa", methods: res.data as MfaMethods };
  const body = res.data as { user: UserInfo; url?: string };
  return { kind: "signed_in", user: body.user, url: body.url };
}

/** The message key for a refusal that is not about one field. */
function refusalKey(err: unknown): "badCredentials" | "locked" | "disabled" | "generic" {
  if (!(err instanceof ApiBadRequestError)) return "generic";
  if (err.status === 429) return "locked";
  if (err.status === 401) return err.msg === "user account is disabled" ? "disabled" : "badCredentials";
  return "generic";
}

interface LoginFormProps {
  /** Validated same-origin path from ?r=, where to go after signing in. */
  returnTo: string | null;
}

export function LoginForm({ returnTo }: LoginFormProps) {
  const t = useTranslations("login");
  const router = useRouter();
  const client = useQueryClient();
  const { fromKey, fromServer } = useValidationMessages();
  const [mfa, setMfa] = useState<MfaMethods | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);

  const form = useForm<LoginInput>({
    resolver: zodResolver(loginSchema),
    mode: "onBlur",
    defaultValues: { username: "", password: "" },
  });
  const { errors } = form.formState;

  const login = useMutation({
    mutationFn: signIn,
    onMutate: () => setRefusal(null),
    onSuccess: (outcome) => {
      if (outcome.kind === "mfa") {
        setMfa(outcome.methods);
        return;
      }
      client.setQueryData(currentUserQuery.queryKey, outcome.user);
      updateSession({ user: outcome.user });
      if (outcome.url) {
        window.location.assign(outcome.url);
        return;
      }
      router.replace(returnTo ?? (outcome.user.is_admin ? "/overview" : "/me"));
    },
    onError: (err) => {
      if (err instanceof ApiBadRequestError && (err.field === "username" || err.field === "password")) {
        form.setError(err.field, { message: fromServer(err) });
        return;
      }
      const key = refusalKey(err);
      setRefusal(key === "generic" && err instanceof ApiBadRequestError ? err.msg : t(`errors.${key}`));
    },
  });

  function backToPassword() {
    // Drop the half-open session that waits for the second factor.
    api.post("/auth/logout").catch(() => undefined);
    setMfa(null);
    form.reset({ username: form.getValues("username"), password: "" });
  }

  if (mfa) return <MfaRequired methods={mfa} onBack={backToPassword} />;

  // Keep the button busy after success too, while the next page loads.
  const busy = login.isPending || (login.isSuccess && login.data.kind === "signed_in");

  return (
    <form noValidate onSubmit={form.handleSubmit((values) => !busy && login.mutate(values))} className="flex flex-col gap-4">
      {refusal && (
        <p
          data-testid="login-error"
          role="alert"
          className="rounded-md border border-error/30 bg-error-subtle px-3 py-2 text-sm font-medium text-error"
        >
          {refusal}
        </p>
      )}
      <Field label={t("username")} error={fromKey(errors.username?.message)}>
        <Input
          data-testid="login-username"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          autoFocus
          {...form.register("username")}
        />
      </Field>
      <Field label={t("password")} error={fromKey(errors.password?.message)}>
        <Input data-testid="login-password" type="password" autoComplete="current-password" {...form.register("password")} />
      </Field>
      <Button data-testid="login-submit" type="submit" size="lg" loading={busy} className="mt-2 w-full">
        {t("submit")}
      </Button>
    </form>
  );
}
