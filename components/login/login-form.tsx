"use client";

import { useEffect, useRef, useState, useSyncExternalStore, type FormEvent, type ReactNode } from "react";
import dynamic from "next/dynamic";
import Link from "next/link";
import { useRouter } from "next/navigation";
import type { AbstractIntlMessages } from "next-intl";
import { LogIn } from "lucide-react";
import { api, apiRequest, ApiBadRequestError } from "@/lib/api/client";
import type { LoginSuccess, LoginSuccessBody, MfaRequired as MfaMethods, UserInfo } from "@/lib/api/types";
import { updateSession } from "@/components/auth/session-store";
import { MFA_SETUP_PATH } from "@/components/mfa/paths";
import { buttonVariants } from "@/components/ui/button-variants";
import { controlClasses, fieldErrorClasses, formAlertClasses, labelClasses } from "@/components/ui/control-classes";
import { Spinner } from "@/components/ui/spinner";

// The second factor with its providers: fetched only when the password step asks for it.
const MfaBoundary = dynamic(() => import("./mfa-boundary"), { ssr: false });

/** The sign-in page's texts, translated on the server (the page ships no translation runtime). */
export interface LoginTexts {
  title: string;
  subtitle: string;
  username: string;
  password: string;
  submit: string;
  forgot: string;
  required: string;
  tooLong: string;
  errors: { badCredentials: string; locked: string; disabled: string; generic: string };
  /** The external provider's button: label, separator and the failure text; null without a provider. */
  external: { label: string; or: string; unavailable: string } | null;
}

type AuthInfo = { url: string; button_display_name?: string };

/** POST /auth, 200 body; `mfa_setup_required` is set when the instance requires MFA and the user has none. */
type PasswordStepBody = LoginSuccessBody & { mfa_setup_required?: boolean };

type Outcome = { kind: "signed_in"; user: UserInfo; url?: string; mfaSetupRequired: boolean } | { kind: "mfa"; methods: MfaMethods };

async function signIn(input: { username: string; password: string }): Promise<Outcome> {
  const res = await apiRequest<PasswordStepBody | MfaMethods>("POST", "/auth", input);
  if (res.status === 201) return { kind: "mfa", methods: res.data as MfaMethods };
  const body = res.data as LoginSuccess & { mfa_setup_required?: boolean };
  return { kind: "signed_in", user: body.user, url: body.url, mfaSetupRequired: body.mfa_setup_required === true };
}

const noSubscription = () => () => {};

type FieldName = "username" | "password";

// The limits of loginSchema (lib/auth/schema.ts), which the server applies to the same request.
const MAX = { username: 254, password: 1024 } as const;

interface LoginFormProps {
  /** Validated same-origin path from ?r=, where to go after signing in. */
  returnTo: string | null;
  texts: LoginTexts;
  /** For the second-factor step, which renders with the client translation runtime. */
  locale: string;
  messages: AbstractIntlMessages;
}

/**
 * Password step, then (201) the second-factor step in the same card. Plain state, one fetch and
 * plain elements styled with the primitives' class strings: the sign-in page is the first thing
 * a browser loads, so it carries no form library, schema library, query client or class merger
 * (the server validates the same input with loginSchema).
 */
export function LoginForm({ returnTo, texts, locale, messages }: LoginFormProps) {
  const router = useRouter();
  const [values, setValues] = useState({ username: "", password: "" });
  const [errors, setErrors] = useState<Partial<Record<FieldName, string>>>({});
  const [refusal, setRefusal] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const [signedIn, setSignedIn] = useState(false);
  const [mfa, setMfa] = useState<MfaMethods | null>(null);
  const [going, setGoing] = useState(false);
  const usernameRef = useRef<HTMLInputElement>(null);
  const passwordRef = useRef<HTMLInputElement>(null);

  function check(name: FieldName, value: string): string | undefined {
    const v = name === "username" ? value.trim() : value;
    if (!v) return texts.required;
    if (v.length > MAX[name]) return texts.tooLong;
    return undefined;
  }

  /** Signed in (after the password or the second factor): go where the user was heading. */
  function finish(user: UserInfo, url: string | undefined, mfaSetupRequired = false) {
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

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    if (pending || signedIn) return;
    const found = { username: check("username", values.username), password: check("password", values.password) };
    setErrors(found);
    if (found.username || found.password) {
      (found.username ? usernameRef : passwordRef).current?.focus();
      return;
    }
    setRefusal(null);
    setPending(true);
    try {
      const outcome = await signIn({ username: values.username.trim(), password: values.password });
      if (outcome.kind === "mfa") {
        setMfa(outcome.methods);
        return;
      }
      setSignedIn(true);
      finish(outcome.user, outcome.url, outcome.mfaSetupRequired);
    } catch (err) {
      if (err instanceof ApiBadRequestError && (err.field === "username" || err.field === "password")) {
        setErrors({ [err.field]: err.msg });
      } else if (err instanceof ApiBadRequestError && err.status === 429) setRefusal(texts.errors.locked);
      else if (err instanceof ApiBadRequestError && err.status === 401) {
        setRefusal(err.msg === "user account is disabled" ? texts.errors.disabled : texts.errors.badCredentials);
      } else setRefusal(err instanceof ApiBadRequestError ? err.msg : texts.errors.generic);
    } finally {
      setPending(false);
    }
  }

  function backToPassword() {
    // Drop the half-open session that waits for the second factor.
    api.post("/auth/logout").catch(() => undefined);
    setMfa(null);
    setValues((v) => ({ username: v.username, password: "" }));
  }

  async function external() {
    setGoing(true);
    setRefusal(null);
    try {
      // A fresh authorization URL, so the sealed state cookie is new however long the page stood open.
      const fresh = await api.get<AuthInfo>("/openid/auth_info");
      window.location.assign(fresh.url);
    } catch {
      setGoing(false);
      setRefusal(texts.external?.unavailable ?? texts.errors.generic);
    }
  }

  // Until React has hydrated the form, a submit would be the browser's own (a GET with the
  // password in the URL): the fields stay disabled until then.
  const hydrated = useSyncExternalStore(noSubscription, () => true, () => false);
  // autoFocus cannot focus the still disabled field while hydrating.
  useEffect(() => {
    if (hydrated && !mfa) usernameRef.current?.focus();
  }, [hydrated, mfa]);

  if (mfa) {
    return (
      <MfaBoundary locale={locale} messages={messages} methods={mfa} onBack={backToPassword} onSignedIn={(body) => finish(body.user, body.url)} />
    );
  }

  const field = (name: FieldName) => ({
    id: `login-${name}`,
    name,
    value: values[name],
    className: `${controlClasses} h-9`,
    "aria-invalid": errors[name] ? true : undefined,
    "aria-describedby": errors[name] ? `login-${name}-error` : undefined,
    onChange: (e: React.ChangeEvent<HTMLInputElement>) => {
      const value = e.target.value;
      setValues((v) => ({ ...v, [name]: value }));
      // Once shown, an error follows the typing; a first error waits for the blur.
      if (errors[name]) setErrors((x) => ({ ...x, [name]: check(name, value) }));
    },
    onBlur: (e: React.FocusEvent<HTMLInputElement>) => {
      const value = e.target.value;
      setErrors((x) => ({ ...x, [name]: check(name, value) }));
    },
  });

  const errorLine = (name: FieldName) =>
    errors[name] && (
      <p id={`login-${name}-error`} className={fieldErrorClasses}>
        {errors[name]}
      </p>
    );
  const busyButton = (busy: boolean, content: ReactNode) => (
    <>
      {busy && (
        <span className="absolute inset-0 flex items-center justify-center">
          <Spinner size={16} />
        </span>
      )}
      <span className={busy ? "invisible inline-flex items-center gap-2" : "inline-flex items-center gap-2"}>{content}</span>
    </>
  );
  const busy = pending || signedIn;

  return (
    <>
      <h1 className="mb-1 text-xl font-semibold tracking-tight">{texts.title}</h1>
      <p className="mb-6 text-sm text-fg-muted">{texts.subtitle}</p>
      <form method="post" noValidate onSubmit={onSubmit}>
        <fieldset disabled={!hydrated} className="flex min-w-0 flex-col gap-4">
          {refusal && (
            <p data-testid="login-error" role="alert" className={formAlertClasses.error}>
              {refusal}
            </p>
          )}
          <div className="flex flex-col gap-1.5">
            <label htmlFor="login-username" className={labelClasses}>
              {texts.username}
            </label>
            <input ref={usernameRef} data-testid="login-username" autoComplete="username" autoCapitalize="none" spellCheck={false} autoFocus {...field("username")} />
            {errorLine("username")}
          </div>
          <div className="flex flex-col gap-1.5">
            <label htmlFor="login-password" className={labelClasses}>
              {texts.password}
            </label>
            <input ref={passwordRef} data-testid="login-password" type="password" autoComplete="current-password" {...field("password")} />
            {errorLine("password")}
          </div>
          {/* Busy after success too, while the next page loads. */}
          <button data-testid="login-submit" type="submit" disabled={busy} aria-busy={busy || undefined} className={`${buttonVariants({ size: "lg" })} mt-2 w-full`}>
            {busyButton(busy, texts.submit)}
          </button>
          {/* Keeps the focus where it is: a blur would show "required" above and move the link away from the pointer. */}
          <Link
            href="/password-reset"
            onMouseDown={(e) => e.preventDefault()}
            className="text-center text-sm text-fg-muted hover:text-fg hover:underline"
            data-testid="login-forgot"
          >
            {texts.forgot}
          </Link>
        </fieldset>
      </form>
      {texts.external && (
        <div className="mt-6 flex flex-col gap-4">
          <div className="flex items-center gap-3 text-xs text-fg-muted" aria-hidden>
            <span className="h-px flex-1 bg-border" />
            {texts.external.or}
            <span className="h-px flex-1 bg-border" />
          </div>
          <button
            type="button"
            data-testid="login-openid"
            disabled={going}
            aria-busy={going || undefined}
            className={`${buttonVariants({ variant: "secondary", size: "lg" })} w-full`}
            onMouseDown={(e) => e.preventDefault()}
            onClick={external}
          >
            {busyButton(going, <><LogIn aria-hidden />{texts.external.label}</>)}
          </button>
        </div>
      )}
    </>
  );
}
