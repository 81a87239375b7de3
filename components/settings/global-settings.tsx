"use client";

import { useEffect, useRef, type ReactNode } from "react";
import { useRouter } from "next/navigation";
import { useTranslations } from "next-intl";
import { Controller, useForm, useWatch, type Control } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";
import { AlertTriangle } from "lucide-react";
import { api, ApiBadRequestError } from "@/lib/api/client";
import { settingsPatchSchema } from "@/lib/settings/schema";
import { useCurrentUser } from "@/components/auth/use-current-user";
import { useValidationMessages } from "@/components/forms/messages";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Switch } from "@/components/ui/switch";
import { toast } from "@/components/ui/toaster";
import { useServerError } from "@/components/users/server-errors";
import { DEFAULT_MAIN_LOGO, DEFAULT_NAV_LOGO } from "./defaults";
import { essentialsQuery, settingsQuery, type SettingsView, type SettingsViewBody } from "./queries";

const MODULES = ["wireguard_enabled", "openid_enabled", "webhooks_enabled", "worker_enabled"] as const;

const shape = settingsPatchSchema.shape;
const formSchema = z.object({
  instance_name: shape.instance_name.unwrap(),
  main_logo_url: shape.main_logo_url.unwrap(),
  nav_logo_url: shape.nav_logo_url.unwrap(),
  wireguard_enabled: z.boolean(),
  webhooks_enabled: z.boolean(),
  worker_enabled: z.boolean(),
  openid_enabled: z.boolean(),
  require_mfa: z.boolean(),
});
type Values = z.infer<typeof formSchema>;
const FIELDS = Object.keys(formSchema.shape) as (keyof Values)[];

function valuesOf(s: SettingsView): Values {
  return {
    instance_name: s.instance_name,
    main_logo_url: s.main_logo_url ?? "",
    nav_logo_url: s.nav_logo_url ?? "",
    wireguard_enabled: s.wireguard_enabled,
    webhooks_enabled: s.webhooks_enabled,
    worker_enabled: s.worker_enabled,
    openid_enabled: s.openid_enabled,
    require_mfa: s.require_mfa,
  };
}

function SwitchRow({
  control,
  name,
  label,
  hint,
  children,
}: {
  control: Control<Values>;
  name: (typeof MODULES)[number] | "require_mfa";
  label: string;
  hint: string;
  children?: ReactNode;
}) {
  const id = `setting-${name}`;
  return (
    <Controller
      control={control}
      name={name}
      render={({ field }) => (
        <div className="flex items-start justify-between gap-4 py-3">
          <div className="min-w-0">
            <label htmlFor={id} className="text-sm font-medium text-fg">
              {label}
            </label>
            <p className="text-xs text-fg-muted">{hint}</p>
            {children}
          </div>
          <Switch id={id} data-testid={id} checked={field.value} onCheckedChange={field.onChange} />
        </div>
      )}
    />
  );
}

/** A logo preview at its maximum display size (main 250x100, nav 100x100). */
function LogoPreview({ url, fallback, kind }: { url: string; fallback: string; kind: "main" | "nav" }) {
  // Only what the schema accepts is loaded (no ftp:, data: or javascript: sources).
  const v = url.trim();
  const src = v.startsWith("/") || /^https?:\/\/[^\s]+$/.test(v) ? v : fallback;
  return (
    <div
      className={
        kind === "main"
          ? "flex h-[60px] w-[150px] shrink-0 items-center justify-center rounded-md border border-dashed border-border-strong bg-subtle p-2"
          : "flex size-[60px] shrink-0 items-center justify-center rounded-md border border-dashed border-border-strong bg-subtle p-2"
      }
    >
      <img src={src} alt="" className="max-h-full max-w-full object-contain" />
    </div>
  );
}

/** Settings → Global: instance name, logos, module switches and the MFA requirement. */
export function GlobalSettings({ settings }: { settings: SettingsView }) {
  const t = useTranslations("settings.global");
  const client = useQueryClient();
  const router = useRouter();
  const me = useCurrentUser().data;
  const { fromKey } = useValidationMessages();
  const serverError = useServerError();
  const sending = useRef(false);

  const form = useForm<Values>({ resolver: zodResolver(formSchema), mode: "onTouched", defaultValues: valuesOf(settings) });
  const { errors, isDirty } = form.formState;
  const [mainLogo, navLogo, requireMfa] = useWatch({ control: form.control, name: ["main_logo_url", "nav_logo_url", "require_mfa"] });

  useEffect(() => {
    if (!form.formState.isDirty) form.reset(valuesOf(settings));
  }, [settings, form]);

  const save = useMutation({
    mutationFn: (v: Values) => api.patch<SettingsViewBody>("/settings", v),
    onSettled: () => {
      sending.current = false;
    },
    onSuccess: async (saved) => {
      client.setQueryData(settingsQuery.queryKey, saved);
      form.reset(valuesOf(saved as SettingsView));
      toast.success(t("saved"));
      // Name, logos and module switches show in the frame (navigation, title).
      await client.invalidateQueries({ queryKey: essentialsQuery.queryKey });
      // The page title (instance name) comes from the server.
      router.refresh();
    },
    onError: (err) => {
      if (err instanceof ApiBadRequestError && err.field && (FIELDS as string[]).includes(err.field)) {
        form.setError(err.field as keyof Values, { message: serverError(err) });
        return;
      }
      toast.error(t("saveFailed"), { subMessage: serverError(err) });
    },
  });

  return (
    <form
      noValidate
      data-testid="global-form"
      onSubmit={form.handleSubmit((v) => {
        if (sending.current) return;
        sending.current = true;
        save.mutate(v);
      })}
      className="flex flex-col gap-4"
    >
      <Card>
        <CardHeader title={t("branding")} description={t("brandingDescription")} />
        <CardBody className="flex flex-col gap-4">
          <Field label={t("instanceName")} error={fromKey(errors.instance_name?.message)} hint={t("instanceNameHint")}>
            <Input data-testid="setting-instance-name" {...form.register("instance_name")} />
          </Field>
          <div className="flex flex-col gap-3 sm:flex-row sm:items-start">
            <Field label={t("mainLogo")} error={fromKey(errors.main_logo_url?.message)} hint={t("mainLogoHint")} className="flex-1">
              <Input data-testid="setting-main-logo" placeholder={DEFAULT_MAIN_LOGO} spellCheck={false} {...form.register("main_logo_url")} />
            </Field>
            <LogoPreview url={mainLogo ?? ""} fallback={DEFAULT_MAIN_LOGO} kind="main" />
          </div>
          <div className="flex flex-col gap-3 sm:flex-row sm:items-start">
            <Field label={t("navLogo")} error={fromKey(errors.nav_logo_url?.message)} hint={t("navLogoHint")} className="flex-1">
              <Input data-testid="setting-nav-logo" placeholder={DEFAULT_NAV_LOGO} spellCheck={false} {...form.register("nav_logo_url")} />
            </Field>
            <LogoPreview url={navLogo ?? ""} fallback={DEFAULT_NAV_LOGO} kind="nav" />
          </div>
        </CardBody>
      </Card>

      <Card>
        <CardHeader title={t("modules")} description={t("modulesDescription")} />
        <CardBody className="divide-y divide-border py-1">
          {MODULES.map((m) => (
            <SwitchRow key={m} control={form.control} name={m} label={t(`module.${m}.label`)} hint={t(`module.${m}.hint`)} />
          ))}
        </CardBody>
      </Card>

      <Card>
        <CardHeader title={t("security")} />
        <CardBody className="py-1">
          <SwitchRow control={form.control} name="require_mfa" label={t("requireMfa")} hint={t("requireMfaHint")}>
            {requireMfa && !settings.require_mfa && me && !me.mfa_enabled && (
              <p className="mt-2 flex items-start gap-2 rounded-md bg-warning-subtle px-3 py-2 text-xs text-fg" data-testid="require-mfa-warning">
                <AlertTriangle className="mt-px size-3.5 shrink-0 text-warning" aria-hidden />
                {t("requireMfaSelfWarning")}
              </p>
            )}
          </SwitchRow>
        </CardBody>
      </Card>

      <div className="sticky bottom-0 z-10 -mx-1 flex flex-col-reverse gap-2 bg-canvas/90 px-1 py-3 backdrop-blur sm:flex-row sm:justify-end">
        <Button variant="secondary" disabled={!isDirty || save.isPending} onClick={() => form.reset(valuesOf(settings))}>
          {t("discard")}
        </Button>
        <Button type="submit" loading={save.isPending} disabled={!isDirty} data-testid="global-save">
          {t("save")}
        </Button>
      </div>
    </form>
  );
}
