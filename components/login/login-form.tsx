"use client";

import { useEffect, useState, useSyncExternalStore } from "react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useTranslations } from "next-intl";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { loginSchema, type LoginInput } from "@/lib/auth/schema";
import { api, apiRequest, ApiBadRequestError } from "@/lib/api/client";
import type { LoginSuccess, LoginSuccessBody, MfaRequired as MfaMethods, UserInfo } from "@/lib/api/types";
import { currentUserQuery } from "@/components/auth/use-current-user";
import { updateSession } from "@/components/auth/session-store";
import { useValidationMessages } from "@/components/forms/messages";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FormAlert } from "@/components/ui/form-alert";
import { Input } from "@/components/ui/input";
import { useSubmit } from "@/components/ui/use-submit";
import { MFA_SETUP_PATH } from "@/components/mfa/api";
import { MfaStep } from "./mfa-step";
import { ExternalSignIn } from "@/components/extid/external-sign-in";

type LoginOutcome =
  | { kind: "signed_in"; user: UserInfo; url?: string; mfaSetupRequired: boolean }
  | { kind: "mfa"; methods: MfaMethods };

/** POST /auth, 200 body; `mfa_setup_required` is set when the instance requires MFA and the user has none. */
type PasswordStepBody = LoginSuccessBody & { mfa_setup_required?: boolean };

async function signIn(input: LoginInput): Promise<LoginOutcome> {
  const res = await apiRequest<PasswordStepBody | MfaMethods>("POST", "/auth", input);
  if (res.status === 201) return { kind: "mfa", methods: res.data as MfaMethods };
  const body = res.data as LoginSuccess & { mfa_setup_required?: boolean };
  return { kind: "signed_in", user: body.user, url: body.url, mfaSetupRequired: body.mfa_setup_required === true };
}

const noSubscription = () => () => {};

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
  /** Instance name, for the subtitle. */
  name: string;
}

/** Password step, then (201) the second-factor step in the same card. */
export function LoginForm({ returnTo, name }: LoginFormProps) {
  const t = useTranslations("login");
  const tr = useTranslations("passwordReset");
  const router = useRouter();
  const client = useQueryClient();
  const { fromServer } = useValidationMessages();
  const [mfa, setMfa] = useState<MfaMethods | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [signedIn, setSignedIn] = useState(false);

  const form = useForm<LoginInput>({
    resolver: zodResolver(loginSchema),
    mode: "onBlur",
    defaultValues: { username: "", password: "" },
  });

  /** Signed in (after the password or the second factor): go where the user was heading. */
  function finish(user: UserInfo, url: string | undefined, mfaSetupRequired = false) {
    client.setQueryData(currentUserQuery.queryKey, user);
    updateSession({ user });
    if (mfaSetupRequired) {
      // The instance requires MFA and this account has none: set it up before anything else.
      router.replace(returnTo ? `${MFA_SETUP_PATH}?r=${encodeURIComponent(returnTo)}` : MFA_SETUP_PATH);
      return;
    }
    if (url) {
      window.location.assign(url);
      return;
    }
    // An OpenID authorization resumes at an API path served outside Next.js: load it in full.
    if (returnTo?.startsWith("/api/")) window.location.assign(returnTo);
    else router.replace(returnTo ?? (user.is_admin ? "/overview" : "/me"));
  }

  const login = useSubmit(form, {
    mutationFn: (v) => {
      setRefusal(null);
      return signIn(v);
    },
    onSuccess: (outcome) => {
      if (outcome.kind === "mfa") {
        setMfa(outcome.methods);
        return;
      }
      setSignedIn(true);
      finish(outcome.user, outcome.url, outcome.mfaSetupRequired);
    },
    errorText: (err) => {
      if (err instanceof ApiBadRequestError && err.field) return fromServer(err) ?? err.msg;
      const key = refusalKey(err);
      return key === "generic" && err instanceof ApiBadRequestError ? err.msg : t(`errors.${key}`);
    },
    fields: ["username", "password"],
    // A refused sign-in is said above the fields, not in a toast.
    report: setRefusal,
    // Signed in: the next page loads, the form stays as it is.
    ready: () => !signedIn,
  });

  function backToPassword() {
    // Drop the half-open session that waits for the second factor.
    api.post("/auth/logout").catch(() => undefined);
    setMfa(null);
    form.reset({ username: form.getValues("username"), password: "" });
  }

  // Until React has hydrated the form, a submit would be the browser's own (a GET with the
  // password in the URL): the fields stay disabled until then.
  const hydrated = useSyncExternalStore(noSubscription, () => true, () => false);
  // autoFocus cannot focus the still disabled field while hydrating.
  useEffect(() => {
    if (hydrated && !mfa) form.setFocus("username");
  }, [hydrated, mfa, form]);

  if (mfa) {
    return <MfaStep methods={mfa} onBack={backToPassword} onSignedIn={(body) => finish(body.user, body.url)} />;
  }

  // Keep the button busy after success too, while the next page loads.
  const busy = login.pending || signedIn;

  return (
    <>
      <h1 className="mb-1 text-xl font-semibold tracking-tight">{t("title")}</h1>
      <p className="mb-6 text-sm text-fg-muted">{t("subtitle", { name })}</p>
      <form method="post" noValidate onSubmit={login.onSubmit}>
        <fieldset disabled={!hydrated} className="flex min-w-0 flex-col gap-4">
          {refusal && <FormAlert testId="login-error">{refusal}</FormAlert>}
          <Field label={t("username")} error={login.errorOf("username")}>
            <Input
              data-testid="login-username"
              autoComplete="username"
              autoCapitalize="none"
              spellCheck={false}
              autoFocus
              {...form.register("username")}
            />
          </Field>
          <Field label={t("password")} error={login.errorOf("password")}>
            <Input data-testid="login-password" type="password" autoComplete="current-password" {...form.register("password")} />
          </Field>
          <Button data-testid="login-submit" type="submit" size="lg" loading={busy} className="mt-2 w-full">
            {t("submit")}
          </Button>
          {/* Keeps the focus where it is: a blur would show "required" above and move the link away from the pointer. */}
          <Link
            href="/password-reset"
            onMouseDown={(e) => e.preventDefault()}
            className="text-center text-sm text-fg-muted hover:text-fg hover:underline"
            data-testid="login-forgot"
          >
            {tr("forgot")}
          </Link>
        </fieldset>
      </form>
      <ExternalSignIn />
    </>
  );
}
