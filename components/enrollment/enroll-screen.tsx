"use client";

import Link from "next/link";
import { useState } from "react";
import { useTranslations } from "next-intl";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { z } from "zod";
import { CircleCheck } from "lucide-react";
import { api, ApiBadRequestError } from "@/lib/api/client";
import { passwordSchema, phoneSchema, requiredOrType, V } from "@/lib/validation";
import { deviceNameSchema } from "@/lib/devices/schema";
import { AuthFrame } from "@/components/login/login-screen";
import { ConfigResult } from "@/components/devices/config-result";
import { Markdown } from "./markdown";
import { EnrollMfaStep } from "./enroll-mfa";
import { generateKeyPair, isValidKey } from "@/components/devices/wg-keys";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { useSubmit } from "@/components/ui/use-submit";

/** EnrollmentStartResponse, as far as these pages use it. */
interface StartInfo {
  user: { first_name: string; last_name: string; login: string; email: string; phone_number?: string; enrolled: boolean };
  admin?: { name: string; email: string; phone_number?: string };
  final_page_content: string;
  instance: { name: string };
  settings: { vpn_setup_optional: boolean; mfa_required: boolean; smtp_configured: boolean };
}

interface DeviceAnswer {
  device: { name: string };
  configs: { network_id: number; network_name: string; config: string }[];
}

type Step = "token" | "password" | "mfa" | "device" | "done";

const MISMATCH = "mismatch";
const serverText = (err: unknown, fallback: string) => (err instanceof ApiBadRequestError ? err.msg : fallback);

const tokenSchema = z.object({ token: z.string(requiredOrType).trim().min(1, { error: V.required }) });
const passwordFormSchema = z
  .object({ phone: phoneSchema, password: passwordSchema, confirm: z.string(requiredOrType).min(1, { error: V.required }) })
  .refine((v) => v.password === v.confirm, { path: ["confirm"], error: MISMATCH });
const deviceFormSchema = z
  .object({ name: deviceNameSchema, method: z.enum(["generate", "manual"]), pubkey: z.string().trim() })
  .refine((v) => v.method === "generate" || isValidKey(v.pubkey), { path: ["pubkey"], error: "invalidKey" });

function Steps({ step, enrolled, mfa }: { step: Step; enrolled: boolean; mfa: boolean }) {
  const t = useTranslations("enroll");
  const all: Step[] = enrolled ? ["token", "device", "done"] : ["token", "password", ...(mfa ? (["mfa"] as Step[]) : []), "device", "done"];
  const at = all.indexOf(step);
  return (
    <ol className="mb-6 flex gap-1.5" aria-label={t("progress")} data-testid="enroll-steps">
      {all.map((s, i) => (
        <li key={s} className={`h-1 flex-1 rounded-full ${i <= at ? "bg-accent" : "bg-border"}`} aria-current={i === at ? "step" : undefined}>
          <span className="sr-only">{t(`step.${s}`)}</span>
        </li>
      ))}
    </ol>
  );
}

/**
 * The console's public enrolment pages (/enroll?token=…): the token, then the password (for a
 * new account), then MFA set-up when the instance or a location the user may use requires it
 * (settings.mfa_required; new accounts only), then a device (keys made in the browser or a pasted public key; optional when
 * the settings say so), then the welcome text with the device's configuration. They call the
 * same endpoints a defguard desktop client does (/api/v1/enrollment/*), with the session cookie.
 */
export function EnrollScreen({ initialToken }: { initialToken: string }) {
  const t = useTranslations("enroll");
  const [step, setStep] = useState<Step>("token");
  const [info, setInfo] = useState<StartInfo | null>(null);
  const [account, setAccount] = useState<{ password: string; phone: string | null } | null>(null);
  const [result, setResult] = useState<{ answer: DeviceAnswer; privateKey: string | null } | null>(null);
  const [finishError, setFinishError] = useState<string | null>(null);

  const tokenForm = useForm({ resolver: zodResolver(tokenSchema), defaultValues: { token: initialToken } });
  const passwordForm = useForm({ resolver: zodResolver(passwordFormSchema), mode: "onTouched", defaultValues: { phone: "", password: "", confirm: "" } });
  const deviceForm = useForm({
    resolver: zodResolver(deviceFormSchema),
    defaultValues: { name: "", method: "generate" as "generate" | "manual", pubkey: "" },
  });

  /** The account's password is set last: the session ends with it. */
  async function activate() {
    if (!account) return;
    await api.post("/enrollment/activate_user", { password: account.password, phone_number: account.phone || undefined });
  }

  const start = useSubmit(tokenForm, {
    mutationFn: (v) => api.post<StartInfo>("/enrollment/start", { token: v.token }),
    onSuccess: (data) => {
      const d = data as unknown as StartInfo;
      setInfo(d);
      passwordForm.reset({ phone: d.user.phone_number ?? "", password: "", confirm: "" });
      deviceForm.reset({ name: "", method: "generate", pubkey: "" });
      setStep(d.user.enrolled ? "device" : "password");
    },
    errorText: (err) => serverText(err, t("failed")),
    fields: ["token"],
    toastFieldErrors: true,
  });

  const choosePassword = useSubmit(passwordForm, {
    mutationFn: async (v) => v,
    onSuccess: (v) => {
      setAccount({ password: v.password, phone: v.phone });
      setStep(info?.settings.mfa_required ? "mfa" : "device");
    },
    errorText: () => t("failed"),
  });

  const addDevice = useSubmit(deviceForm, {
    mutationFn: async (v) => {
      const keys = v.method === "generate" ? await generateKeyPair() : null;
      const answer = await api.post<DeviceAnswer>("/enrollment/create_device", { name: v.name, pubkey: keys?.publicKey ?? v.pubkey.trim() });
      return { answer: answer as unknown as DeviceAnswer, privateKey: keys?.privateKey ?? null };
    },
    onSuccess: async (r) => {
      setResult(r);
      try {
        await activate();
      } catch (err) {
        setFinishError(serverText(err, t("failed")));
      }
      setStep("done");
    },
    errorText: (err) => serverText(err, t("failed")),
    fields: ["name", "pubkey"],
  });

  async function skipDevice() {
    try {
      await activate();
      setStep("done");
    } catch (err) {
      setFinishError(serverText(err, t("failed")));
      setStep("done");
    }
  }

  const enrolled = info?.user.enrolled ?? false;
  const wide = step === "done" && result;
  const method = deviceForm.watch("method");

  return (
    <AuthFrame wide={!!wide}>
      <Steps step={step} enrolled={enrolled} mfa={!enrolled && !!info?.settings.mfa_required} />
      {step === "token" && (
        <>
          <h1 className="mb-1 text-xl font-semibold tracking-tight">{t("tokenTitle")}</h1>
          <p className="mb-6 text-sm text-fg-muted">{t("tokenText")}</p>
          <form noValidate onSubmit={start.onSubmit} className="flex flex-col gap-4" data-testid="enroll-token-form">
            <Field label={t("token")} error={start.errorOf("token")}>
              <Input autoComplete="off" autoFocus={!initialToken} data-testid="enroll-token" {...tokenForm.register("token")} />
            </Field>
            <Button type="submit" size="lg" loading={start.pending} className="mt-2 w-full" data-testid="enroll-start">
              {t("start")}
            </Button>
          </form>
        </>
      )}

      {step === "password" && info && (
        <>
          <h1 className="mb-1 text-xl font-semibold tracking-tight">{t("hello", { name: info.user.first_name || info.user.login })}</h1>
          <p className="mb-6 text-sm text-fg-muted">{t("passwordText", { login: info.user.login, email: info.user.email })}</p>
          <form noValidate onSubmit={choosePassword.onSubmit} className="flex flex-col gap-4" data-testid="enroll-password-form">
            <Field label={t("phone")} error={choosePassword.errorOf("phone")} hint={t("optional")}>
              <Input type="tel" autoComplete="tel" data-testid="enroll-phone" {...passwordForm.register("phone")} />
            </Field>
            <Field
              label={t("password")}
              error={passwordForm.formState.errors.password ? choosePassword.errorOf("password") : undefined}
              hint={t("rules")}
            >
              <Input type="password" autoComplete="new-password" autoFocus data-testid="enroll-password" {...passwordForm.register("password")} />
            </Field>
            <Field
              label={t("confirm")}
              error={passwordForm.formState.errors.confirm?.message === MISMATCH ? t("mismatch") : choosePassword.errorOf("confirm")}
            >
              <Input type="password" autoComplete="new-password" data-testid="enroll-confirm" {...passwordForm.register("confirm")} />
            </Field>
            <Button type="submit" size="lg" className="mt-2 w-full" data-testid="enroll-password-next">
              {t("next")}
            </Button>
          </form>
        </>
      )}

      {step === "mfa" && info && (
        <EnrollMfaStep
          login={info.user.login}
          email={info.user.email}
          instanceName={info.instance.name}
          smtpConfigured={info.settings.smtp_configured}
          onDone={() => setStep("device")}
        />
      )}

      {step === "device" && info && (
        <>
          <h1 className="mb-1 text-xl font-semibold tracking-tight">{t("deviceTitle")}</h1>
          <p className="mb-6 text-sm text-fg-muted">{info.settings.vpn_setup_optional ? t("deviceTextOptional") : t("deviceText")}</p>
          <form noValidate onSubmit={addDevice.onSubmit} className="flex flex-col gap-4" data-testid="enroll-device-form">
            <Field label={t("deviceName")} error={addDevice.errorOf("name")}>
              <Input autoComplete="off" autoFocus data-testid="enroll-device-name" {...deviceForm.register("name")} />
            </Field>
            <fieldset className="flex flex-col gap-2 text-sm">
              <legend className="mb-1 font-medium">{t("keys")}</legend>
              <label className="flex items-start gap-2">
                <input type="radio" value="generate" className="mt-1" data-testid="enroll-method-generate" {...deviceForm.register("method")} />
                <span>
                  {t("generate")}
                  <span className="block text-xs text-fg-muted">{t("generateHint")}</span>
                </span>
              </label>
              <label className="flex items-start gap-2">
                <input type="radio" value="manual" className="mt-1" data-testid="enroll-method-manual" {...deviceForm.register("method")} />
                <span>{t("manual")}</span>
              </label>
            </fieldset>
            {method === "manual" && (
              <Field label={t("pubkey")} error={addDevice.errorOf("pubkey")}>
                <Input autoComplete="off" spellCheck={false} className="font-mono" data-testid="enroll-pubkey" {...deviceForm.register("pubkey")} />
              </Field>
            )}
            <Button type="submit" size="lg" loading={addDevice.pending} className="mt-2 w-full" data-testid="enroll-device-submit">
              {t("addDevice")}
            </Button>
            {info.settings.vpn_setup_optional && (
              <Button type="button" variant="ghost" onClick={skipDevice} data-testid="enroll-skip-device">
                {enrolled ? t("cancel") : t("skip")}
              </Button>
            )}
          </form>
        </>
      )}

      {step === "done" && info && (
        <div className="flex flex-col gap-4" data-testid="enroll-done">
          <div className="flex items-center gap-3">
            <div className="flex size-10 shrink-0 items-center justify-center rounded-lg bg-success-subtle text-success">
              <CircleCheck className="size-5" aria-hidden />
            </div>
            <h1 className="text-xl font-semibold tracking-tight">{enrolled ? t("doneDeviceTitle") : t("doneTitle")}</h1>
          </div>
          {finishError && (
            <p role="alert" className="rounded-md border border-error/30 bg-error-subtle px-3 py-2 text-sm font-medium text-error" data-testid="enroll-finish-error">
              {finishError}
            </p>
          )}
          {!enrolled && info.final_page_content && (
            <Markdown source={info.final_page_content} className="rounded-md bg-subtle px-4 py-3 text-sm" data-testid="enroll-welcome" />
          )}
          {result && (
            <ConfigResult
              deviceName={result.answer.device.name}
              configs={result.answer.configs.map((c) => ({ id: c.network_id, locationName: c.network_name, config: c.config }))}
              privateKey={result.privateKey}
            />
          )}
          <Button asChild size="lg" className="w-full">
            <Link href="/login" data-testid="enroll-to-login">
              {t("toLogin")}
            </Link>
          </Button>
        </div>
      )}
    </AuthFrame>
  );
}
