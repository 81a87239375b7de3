"use client";

import { useRef, useState, type ReactNode } from "react";
import { useRouter } from "next/navigation";
import { useTranslations } from "next-intl";
import { Controller, useForm, useWatch, type Control } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { z } from "zod";
import { AlertTriangle, RotateCcw, Upload, X } from "lucide-react";
import { api, ApiBadRequestError } from "@/lib/api/client";
import { LOGO_MAX_BYTES, type LogoKind } from "@/lib/settings/schema";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { toast } from "@/components/ui/toaster";
import { settingsPatchSchema } from "@/lib/settings/schema";
import { useCurrentUser } from "@/components/auth/use-current-user";
import { useValidationMessages } from "@/components/forms/messages";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { DEFAULT_MAIN_LOGO, DEFAULT_NAV_LOGO } from "./defaults";
import { essentialsQuery, settingsQuery, type SettingsView } from "./queries";
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
  default_overview_view: z.enum(["grid", "list"]),
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
    default_overview_view: s.default_overview_view ?? "grid",
  };
}

function readAsDataUrl(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result));
    r.onerror = () => reject(r.error ?? new Error("read failed"));
    r.readAsDataURL(file);
  });
}

/** Upload (PNG, JPEG or plain SVG, checked again by the server) and remove buttons of one logo. */
function LogoActions({ kind, uploaded, onSaved }: { kind: LogoKind; uploaded: boolean; onSaved: (s: SettingsView) => void }) {
  const t = useTranslations("settings.global");
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const run = async (work: () => Promise<SettingsView>, done: string) => {
    setBusy(true);
    try {
      onSaved(await work());
      toast.success(done);
    } catch (err) {
      toast.error(t("logoFailed"), { subMessage: err instanceof ApiBadRequestError ? err.msg : (err as Error).message });
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="mt-2 flex flex-wrap gap-2">
      <input
        ref={input}
        type="file"
        accept="image/png,image/jpeg,image/svg+xml"
        className="sr-only"
        data-testid={`logo-file-${kind}`}
        aria-label={t("uploadLogo")}
        onChange={async (e) => {
          const file = e.target.files?.[0];
          e.target.value = "";
          if (!file) return;
          if (file.size > LOGO_MAX_BYTES) {
            toast.error(t("logoFailed"), { subMessage: t("logoTooLarge", { kb: LOGO_MAX_BYTES / 1024 }) });
            return;
          }
          const image = await readAsDataUrl(file);
          await run(() => api.post<SettingsView>(`/branding/logo/${kind}`, { image }), t("logoUploaded"));
        }}
      />
      <Button type="button" size="sm" variant="secondary" loading={busy} onClick={() => input.current?.click()} data-testid={`logo-upload-${kind}`}>
        <Upload aria-hidden />
        {t("uploadLogo")}
      </Button>
      {uploaded && (
        <Button type="button" size="sm" variant="ghost" disabled={busy} onClick={() => run(() => api.delete<SettingsView>(`/branding/logo/${kind}`), t("logoRemoved"))}>
          <X aria-hidden />
          {t("removeLogo")}
        </Button>
      )}
    </div>
  );
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
  const [confirmRestore, setConfirmRestore] = useState(false);
  /** A logo or branding change saved outside the form: the form and every reader follow the server. */
  const brandingSaved = async (next: SettingsView) => {
    client.setQueryData(settingsQuery.queryKey, next);
    for (const f of ["instance_name", "main_logo_url", "nav_logo_url"] as const) form.resetField(f, { defaultValue: next[f] ?? "" });
    await client.invalidateQueries({ queryKey: essentialsQuery.queryKey });
    router.refresh();
  };
  const isUploaded = (url: string | undefined) => (url ?? "").startsWith("/api/v1/branding/logo/");
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
          <LogoActions kind="main" uploaded={isUploaded(settings.main_logo_url)} onSaved={brandingSaved} />
          <div className="flex flex-col gap-3 sm:flex-row sm:items-start">
            <Field label={t("navLogo")} error={fromKey(errors.nav_logo_url?.message)} hint={t("navLogoHint")} className="flex-1">
              <Input data-testid="setting-nav-logo" placeholder={DEFAULT_NAV_LOGO} spellCheck={false} {...form.register("nav_logo_url")} />
            </Field>
            <LogoPreview url={navLogo ?? ""} fallback={DEFAULT_NAV_LOGO} kind="nav" />
          </div>
          <LogoActions kind="nav" uploaded={isUploaded(settings.nav_logo_url)} onSaved={brandingSaved} />
          <div>
            <Button type="button" size="sm" variant="ghost" onClick={() => setConfirmRestore(true)} data-testid="restore-branding">
              <RotateCcw aria-hidden />
              {t("restoreBranding")}
            </Button>
            <ConfirmDialog
              open={confirmRestore}
              onOpenChange={setConfirmRestore}
              title={t("restoreBrandingTitle")}
              description={t("restoreBrandingDescription")}
              confirmLabel={t("restoreBranding")}
              danger
              onConfirm={async () => {
                try {
                  await brandingSaved(await api.put<SettingsView>("/settings/1"));
                  toast.success(t("brandingRestored"));
                } catch (err) {
                  toast.error(t("logoFailed"), { subMessage: (err as Error).message });
                  throw err;
                }
              }}
            />
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
        <CardHeader title={t("overviewView")} description={t("overviewViewHint")} />
        <CardBody>
          <Controller
            control={form.control}
            name="default_overview_view"
            render={({ field }) => (
              <Select value={field.value} onValueChange={field.onChange}>
                <SelectTrigger className="w-48" aria-label={t("overviewView")} data-testid="setting-overview-view">
                  <SelectValue />
                </SelectTrigger>
                <SelectContent>
                  <SelectItem value="grid">{t("overviewGrid")}</SelectItem>
                  <SelectItem value="list">{t("overviewList")}</SelectItem>
                </SelectContent>
              </Select>
            )}
          />
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
