"use client";

import type { ReactNode } from "react";
import { useRouter } from "next/navigation";
import { useTranslations } from "next-intl";
import { Controller, useForm, useWatch, type Control } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { z } from "zod";
import { AlertTriangle } from "lucide-react";
import { settingsPatchSchema } from "@/lib/settings/schema";
import { useCurrentUser } from "@/components/auth/use-current-user";
import { useValidationMessages } from "@/components/forms/messages";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { DEFAULT_MAIN_LOGO, DEFAULT_NAV_LOGO } from "./defaults";
import { essentialsQuery, type SettingsView } from "./queries";
import { SettingsSaveBar, SettingSwitch, useSettingsSave } from "./settings-form";

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
        <SettingSwitch id={id} label={label} hint={hint} checked={field.value} onChange={field.onChange}>
          {children}
        </SettingSwitch>
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

  const form = useForm<Values>({ resolver: zodResolver(formSchema), mode: "onTouched", defaultValues: valuesOf(settings) });
  const { errors, isDirty } = form.formState;
  const [mainLogo, navLogo, requireMfa] = useWatch({ control: form.control, name: ["main_logo_url", "nav_logo_url", "require_mfa"] });
  const save = useSettingsSave(form, settings, {
    valuesOf,
    saved: t("saved"),
    saveFailed: t("saveFailed"),
    onSaved: async () => {
      // Name, logos and module switches show in the frame (navigation, title).
      await client.invalidateQueries({ queryKey: essentialsQuery.queryKey });
      // The page title (instance name) comes from the server.
      router.refresh();
    },
  });

  return (
    <form
      noValidate
      data-testid="global-form"
      onSubmit={save.onSubmit}
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

      <SettingsSaveBar save={save} dirty={isDirty} labels={[t("discard"), t("save")]} saveTestId="global-save" />
    </form>
  );
}
