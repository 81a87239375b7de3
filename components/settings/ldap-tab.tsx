"use client";

import { useState } from "react";
import { useTranslations, useFormatter } from "next-intl";
import { Controller, useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { z } from "zod";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { CircleAlert, CircleCheck, PlugZap, RefreshCw } from "lucide-react";
import { api, ApiBadRequestError } from "@/lib/api/client";
import { settingsPatchSchema } from "@/lib/settings/schema";
import { fromText } from "@/lib/validation";
import { useValidationMessages } from "@/components/forms/messages";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { useServerError } from "@/components/users/server-errors";
import type { SettingsView } from "./queries";
import { SettingsSaveBar, SettingSwitch, useSettingsSave } from "./settings-form";

const shape = settingsPatchSchema.shape;

const TEXT = [
  "ldap_url",
  "ldap_bind_username",
  "ldap_bind_password",
  "ldap_user_search_base",
  "ldap_group_search_base",
  "ldap_user_obj_class",
  "ldap_user_auxiliary_obj_classes",
  "ldap_group_obj_class",
  "ldap_username_attr",
  "ldap_user_rdn_attr",
  "ldap_member_attr",
  "ldap_groupname_attr",
  "ldap_group_member_attr",
  "ldap_sync_groups",
] as const;
const SWITCHES = ["ldap_enabled", "ldap_sync_enabled", "ldap_is_authoritative", "ldap_use_starttls", "ldap_tls_verify_cert", "ldap_uses_ad"] as const;
type TextField = (typeof TEXT)[number];
type SwitchField = (typeof SWITCHES)[number];

const list = (v: string) =>
  v
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);

/** The shared settings schema's rules, on text inputs (lists are comma-separated). */
const formSchema = z
  .object({
    ldap_url: z.string(),
    ldap_bind_username: z.string(),
    ldap_bind_password: z.string(),
    ldap_user_search_base: z.string(),
    ldap_group_search_base: z.string(),
    ldap_user_obj_class: z.string(),
    ldap_user_auxiliary_obj_classes: z.string(),
    ldap_group_obj_class: z.string(),
    ldap_username_attr: z.string(),
    ldap_user_rdn_attr: z.string(),
    ldap_member_attr: z.string(),
    ldap_groupname_attr: z.string(),
    ldap_group_member_attr: z.string(),
    ldap_sync_groups: z.string(),
    ldap_enabled: z.boolean(),
    ldap_sync_enabled: z.boolean(),
    ldap_is_authoritative: z.boolean(),
    ldap_use_starttls: z.boolean(),
    ldap_tls_verify_cert: z.boolean(),
    ldap_uses_ad: z.boolean(),
    ldap_sync_interval: fromText(shape.ldap_sync_interval.unwrap()),
  })
  .superRefine((v, ctx) => {
    for (const f of TEXT) {
      const raw = v[f];
      const r = f === "ldap_user_auxiliary_obj_classes" || f === "ldap_sync_groups" ? shape[f].safeParse(list(raw)) : shape[f].safeParse(raw.trim());
      if (!r.success) ctx.addIssue({ code: "custom", path: [f], message: r.error.issues[0].message });
    }
  });
type Values = z.input<typeof formSchema>;
type Parsed = z.output<typeof formSchema>;

function valuesOf(s: SettingsView): Values {
  const text = (v: string | null | undefined) => v ?? "";
  return {
    ldap_url: text(s.ldap_url),
    ldap_bind_username: text(s.ldap_bind_username),
    ldap_bind_password: "",
    ldap_user_search_base: text(s.ldap_user_search_base),
    ldap_group_search_base: text(s.ldap_group_search_base),
    ldap_user_obj_class: text(s.ldap_user_obj_class),
    ldap_user_auxiliary_obj_classes: (s.ldap_user_auxiliary_obj_classes ?? []).join(", "),
    ldap_group_obj_class: text(s.ldap_group_obj_class),
    ldap_username_attr: text(s.ldap_username_attr),
    ldap_user_rdn_attr: text(s.ldap_user_rdn_attr),
    ldap_member_attr: text(s.ldap_member_attr),
    ldap_groupname_attr: text(s.ldap_groupname_attr),
    ldap_group_member_attr: text(s.ldap_group_member_attr),
    ldap_sync_groups: (s.ldap_sync_groups ?? []).join(", "),
    ldap_enabled: s.ldap_enabled,
    ldap_sync_enabled: s.ldap_sync_enabled,
    ldap_is_authoritative: s.ldap_is_authoritative,
    ldap_use_starttls: s.ldap_use_starttls,
    ldap_tls_verify_cert: s.ldap_tls_verify_cert,
    ldap_uses_ad: s.ldap_uses_ad,
    ldap_sync_interval: String(s.ldap_sync_interval),
  };
}

interface StepBody {
  ok: boolean;
  msg?: string;
  kind?: string;
}
interface TestBody {
  ok: boolean;
  connect: StepBody;
  bind: StepBody;
  search: StepBody & { users?: number; groups?: number };
}
interface StatusBody {
  enabled: boolean;
  sync_enabled: boolean;
  configured: boolean;
  missing?: string;
  last_run_at?: string;
  last_success_at?: string;
  last_ok?: boolean;
  last_error_kind?: string;
  last_error?: string;
  last_summary?: Record<string, number>;
  interval_seconds: number;
}

const KINDS = ["not_configured", "invalid_url", "unreachable", "certificate", "tls", "bind_refused", "search_failed", "no_users", "write_failed", "rejected"];

/** Connection status (the test's three steps), the last sync's time and result, "Sync now". */
function LdapStatusCard() {
  const t = useTranslations("settings.ldap.status");
  const tk = useTranslations("settings.ldap.errors");
  const format = useFormatter();
  const client = useQueryClient();
  const serverError = useServerError();
  const status = useQuery({ queryKey: ["ldap-status"], queryFn: ({ signal }) => api.get<StatusBody>("/ldap/status", { signal }), refetchInterval: 30_000 });
  const [failure, setFailure] = useState<{ kind?: string; msg: string } | null>(null);
  /** The steps of a failed test (its 400 answer carries them too): which one stopped it. */
  const [failedSteps, setFailedSteps] = useState<TestBody | null>(null);
  const kindText = (kind?: string) => tk((kind && KINDS.includes(kind) ? kind : "other") as "other");
  const onError = (err: unknown) =>
    setFailure(err instanceof ApiBadRequestError ? { kind: err.code, msg: err.msg } : { msg: serverError(err) });
  const test = useMutation({
    mutationFn: () => api.get<TestBody>("/ldap/test"),
    onMutate: () => {
      setFailure(null);
      setFailedSteps(null);
    },
    onError: (err) => {
      onError(err);
      const body = err instanceof ApiBadRequestError ? (err.body as Partial<TestBody> | undefined) : undefined;
      if (body?.connect && body.bind && body.search) setFailedSteps(body as TestBody);
    },
  });
  const steps = test.data ?? failedSteps;
  const sync = useMutation({
    mutationFn: () => api.post("/ldap/sync"),
    onMutate: () => setFailure(null),
    onError,
    onSettled: () => client.invalidateQueries({ queryKey: ["ldap-status"] }),
  });
  const s = status.data;
  return (
    <Card>
      <CardHeader
        title={t("title")}
        description={t("description")}
        action={
          s ? (
            !s.configured ? (
              <Badge tone="neutral" data-testid="ldap-state">{t("notConfigured")}</Badge>
            ) : !s.enabled ? (
              <Badge tone="neutral" data-testid="ldap-state">{t("disabled")}</Badge>
            ) : s.last_ok === false ? (
              <Badge tone="error" data-testid="ldap-state">
                <CircleAlert aria-hidden />
                {t("failing")}
              </Badge>
            ) : (
              <Badge tone="success" data-testid="ldap-state">
                <CircleCheck aria-hidden />
                {t("enabled")}
              </Badge>
            )
          ) : null
        }
      />
      <CardBody className="flex flex-col gap-3">
        <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
          <dt className="text-fg-muted">{t("lastSync")}</dt>
          <dd data-testid="ldap-last-sync">
            {s?.last_run_at ? format.dateTime(new Date(s.last_run_at), { dateStyle: "medium", timeStyle: "medium" }) : t("never")}
          </dd>
          <dt className="text-fg-muted">{t("result")}</dt>
          <dd data-testid="ldap-last-result">
            {s?.last_ok === true
              ? t("resultOk", {
                  imported: s.last_summary?.users_imported ?? 0,
                  exported: s.last_summary?.users_exported ?? 0,
                  ldapWrites: s.last_summary?.ldap_writes ?? 0,
                  consoleWrites: s.last_summary?.console_writes ?? 0,
                })
              : s?.last_ok === false
                ? `${kindText(s.last_error_kind)}: ${s.last_error ?? ""}`
                : "—"}
          </dd>
        </dl>
        {steps && (
          <ul className="flex flex-col gap-1 text-sm" data-testid="ldap-test-steps">
            {(["connect", "bind", "search"] as const).map((k) => (
              <li key={k} className="flex items-center gap-2" data-testid={`ldap-step-${k}`} data-ok={steps[k].ok ? "true" : "false"}>
                {steps[k].ok ? <CircleCheck className="size-4 text-success" aria-hidden /> : <CircleAlert className="size-4 text-error" aria-hidden />}
                {t(`steps.${k}`)}
                {k === "search" && steps.search.ok && <span className="text-fg-muted">{t("found", { users: steps.search.users ?? 0, groups: steps.search.groups ?? 0 })}</span>}
              </li>
            ))}
          </ul>
        )}
        {failure && (
          <p role="alert" className="rounded-md bg-error-subtle px-3 py-2 text-sm text-fg" data-testid="ldap-error">
            <span className="font-medium">{kindText(failure.kind)}</span>
            <span className="block text-xs text-fg-muted">{failure.msg}</span>
          </p>
        )}
        <div className="flex flex-wrap gap-2">
          <Button variant="secondary" loading={test.isPending} onClick={() => test.mutate()} data-testid="ldap-test">
            <PlugZap aria-hidden />
            {t("test")}
          </Button>
          <Button variant="secondary" loading={sync.isPending} disabled={!s?.enabled} onClick={() => sync.mutate()} data-testid="ldap-sync-now">
            <RefreshCw aria-hidden />
            {t("syncNow")}
          </Button>
        </div>
      </CardBody>
    </Card>
  );
}

/** Settings → LDAP: connection, schema mapping, two-way sync; the bind password is write-only. */
export function LdapTab({ settings }: { settings: SettingsView }) {
  const t = useTranslations("settings.ldap");
  const { fromKey } = useValidationMessages();
  const [clearPassword, setClearPassword] = useState(false);
  const form = useForm<Values, unknown, Parsed>({ resolver: zodResolver(formSchema), mode: "onTouched", defaultValues: valuesOf(settings) });
  const { errors, isDirty } = form.formState;
  const save = useSettingsSave(form, settings, {
    valuesOf,
    patch: (raw) => {
      const v = raw as unknown as Record<string, string | boolean | number>;
      const body: Record<string, unknown> = {};
      for (const f of TEXT) body[f] = String(v[f]).trim() || null;
      body.ldap_user_auxiliary_obj_classes = list(String(v.ldap_user_auxiliary_obj_classes));
      body.ldap_sync_groups = list(String(v.ldap_sync_groups));
      body.ldap_bind_password = clearPassword ? null : String(v.ldap_bind_password);
      for (const f of SWITCHES) body[f] = v[f];
      body.ldap_sync_interval = v.ldap_sync_interval;
      return body;
    },
    fields: [...TEXT, ...SWITCHES, "ldap_sync_interval"],
    saved: t("saved"),
    saveFailed: t("saveFailed"),
    onSaved: () => setClearPassword(false),
  });
  const err = (f: string) => fromKey((errors as Record<string, { message?: string } | undefined>)[f]?.message);
  const textField = (f: TextField, type = "text") => (
    <Field key={f} label={t(`fields.${f}.label`)} hint={t(`fields.${f}.hint`)} error={err(f)}>
      <Input
        type={type}
        autoComplete={type === "password" ? "new-password" : "off"}
        placeholder={f === "ldap_bind_password" ? (clearPassword ? t("passwordWillClear") : settings.ldap_bind_password_set ? t("passwordSet") : t("passwordNotSet")) : undefined}
        data-testid={`setting-${f}`}
        {...form.register(f)}
      />
    </Field>
  );
  const switchField = (f: SwitchField) => (
    <Controller
      key={f}
      control={form.control}
      name={f}
      render={({ field }) => <SettingSwitch id={`setting-${f}`} label={t(`fields.${f}.label`)} hint={t(`fields.${f}.hint`)} checked={Boolean(field.value)} onChange={field.onChange} />}
    />
  );

  return (
    <div className="flex flex-col gap-4">
      <LdapStatusCard />
      <form noValidate data-testid="ldap-form" onSubmit={save.onSubmit} className="flex flex-col gap-4">
        <Card>
          <CardHeader title={t("connection")} description={t("connectionDescription")} />
          <CardBody className="flex flex-col gap-3">
            {switchField("ldap_enabled")}
            {textField("ldap_url")}
            {textField("ldap_bind_username")}
            {textField("ldap_bind_password", "password")}
            {settings.ldap_bind_password_set && (
              <label className="flex items-center gap-2 text-xs text-fg-muted">
                <input type="checkbox" checked={clearPassword} onChange={(e) => setClearPassword(e.target.checked)} data-testid="ldap-clear-password" />
                {t("clearPassword")}
              </label>
            )}
            <div className="divide-y divide-border">
              {switchField("ldap_use_starttls")}
              {switchField("ldap_tls_verify_cert")}
              {switchField("ldap_uses_ad")}
            </div>
          </CardBody>
        </Card>
        <Card>
          <CardHeader title={t("schema")} description={t("schemaDescription")} />
          <CardBody className="grid gap-3 sm:grid-cols-2">
            {textField("ldap_user_search_base")}
            {textField("ldap_group_search_base")}
            {textField("ldap_user_obj_class")}
            {textField("ldap_user_auxiliary_obj_classes")}
            {textField("ldap_username_attr")}
            {textField("ldap_user_rdn_attr")}
            {textField("ldap_member_attr")}
            {textField("ldap_group_obj_class")}
            {textField("ldap_groupname_attr")}
            {textField("ldap_group_member_attr")}
          </CardBody>
        </Card>
        <Card>
          <CardHeader title={t("sync")} description={t("syncDescription")} />
          <CardBody className="flex flex-col gap-3">
            <div className="divide-y divide-border">
              {switchField("ldap_sync_enabled")}
              {switchField("ldap_is_authoritative")}
            </div>
            <Field label={t("fields.ldap_sync_interval.label")} hint={t("fields.ldap_sync_interval.hint")} error={err("ldap_sync_interval")} className="max-w-xs">
              <Input type="number" inputMode="numeric" min={1} step={1} data-testid="setting-ldap_sync_interval" {...form.register("ldap_sync_interval")} />
            </Field>
            {textField("ldap_sync_groups")}
          </CardBody>
        </Card>
        <SettingsSaveBar save={save} dirty={isDirty || clearPassword} labels={[t("discard"), t("save")]} saveTestId="ldap-save" />
      </form>
    </div>
  );
}
