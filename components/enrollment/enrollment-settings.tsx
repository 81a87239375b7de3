"use client";

import { useTranslations } from "next-intl";
import { Controller, useForm, useWatch } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation } from "@tanstack/react-query";
import { z } from "zod";
import { Send } from "lucide-react";
import { api } from "@/lib/api/client";
import { useCurrentUser } from "@/components/auth/use-current-user";
import { SettingSwitch, SettingsSaveBar, useSettingsSave } from "@/components/settings/settings-form";
import { useSettings, type SettingsView } from "@/components/settings/queries";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { InlineError } from "@/components/ui/inline-error";
import { Input } from "@/components/ui/input";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { Textarea } from "@/components/ui/textarea";
import { toast } from "@/components/ui/toaster";
import { useServerError } from "@/components/users/server-errors";
import { Markdown } from "./markdown";

const schema = z.object({
  enrollment_vpn_step_optional: z.boolean(),
  enrollment_welcome_message: z.string().max(100_000),
  enrollment_use_welcome_message_as_email: z.boolean(),
  enrollment_welcome_email: z.string().max(100_000),
  enrollment_welcome_email_subject: z.string().trim().max(256),
});
type Values = z.infer<typeof schema>;

/** The {{ field }} placeholders the welcome texts may use (lib/enrollment/mail.ts). */
const PLACEHOLDERS = ["first_name", "last_name", "username", "defguard_url", "admin_first_name", "admin_last_name", "admin_email", "admin_phone"]
  .map((f) => `{{ ${f} }}`)
  .join(", ");

const valuesOf = (s: SettingsView): Values => ({
  enrollment_vpn_step_optional: s.enrollment_vpn_step_optional,
  enrollment_welcome_message: s.enrollment_welcome_message ?? "",
  enrollment_use_welcome_message_as_email: s.enrollment_use_welcome_message_as_email,
  enrollment_welcome_email: s.enrollment_welcome_email ?? "",
  enrollment_welcome_email_subject: s.enrollment_welcome_email_subject ?? "",
});

/** A Markdown editor with its live preview beside it (below it on narrow screens). */
function MarkdownEditor({ id, label, hint, value, disabled, register }: { id: string; label: string; hint: string; value: string; disabled?: boolean; register: object }) {
  const t = useTranslations("enrollmentSettings");
  return (
    <div className="grid gap-4 lg:grid-cols-2">
      <Field label={label} hint={hint}>
        <Textarea rows={14} className="font-mono text-xs" disabled={disabled} data-testid={id} {...register} />
      </Field>
      <div className="flex min-w-0 flex-col gap-1.5">
        <span className="text-sm font-medium">{t("preview")}</span>
        <Markdown source={value} className="min-h-40 rounded-md border border-border bg-surface px-4 py-3 text-sm" data-testid={`${id}-preview`} />
      </div>
    </div>
  );
}

function EnrollmentForm({ settings }: { settings: SettingsView }) {
  const t = useTranslations("enrollmentSettings");
  const me = useCurrentUser();
  const serverError = useServerError();
  const form = useForm<Values>({ resolver: zodResolver(schema), defaultValues: valuesOf(settings) });
  const save = useSettingsSave(form, settings, { valuesOf, saved: t("saved"), saveFailed: t("saveFailed") });
  const v = useWatch({ control: form.control }) as Values;

  const test = useMutation({
    mutationFn: () =>
      api.post("/mail/test_welcome", {
        to: me.data?.email,
        subject: v.enrollment_welcome_email_subject || undefined,
        content: v.enrollment_use_welcome_message_as_email ? v.enrollment_welcome_message : v.enrollment_welcome_email,
      }),
    onSuccess: () => toast.success(t("testSent", { email: me.data?.email ?? "" })),
    onError: (err) => toast.error(t("testFailed"), { subMessage: serverError(err) }),
  });

  return (
    <form noValidate onSubmit={save.onSubmit} className="flex flex-col gap-6" data-testid="enrollment-settings-form">
      <section className="rounded-lg border border-border bg-surface px-5 py-2">
        <Controller
          control={form.control}
          name="enrollment_vpn_step_optional"
          render={({ field }) => (
            <SettingSwitch id="enrollment-vpn-optional" label={t("vpnOptional")} hint={t("vpnOptionalHint")} checked={field.value} onChange={field.onChange} />
          )}
        />
      </section>

      <section className="flex flex-col gap-4 rounded-lg border border-border bg-surface p-5">
        <h2 className="text-base font-semibold">{t("messageTitle")}</h2>
        <MarkdownEditor
          id="enrollment-welcome-message"
          label={t("message")}
          hint={t("placeholders", { list: PLACEHOLDERS })}
          value={v.enrollment_welcome_message ?? ""}
          register={form.register("enrollment_welcome_message")}
        />
      </section>

      <section className="flex flex-col gap-4 rounded-lg border border-border bg-surface p-5">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 className="text-base font-semibold">{t("emailTitle")}</h2>
          <Button type="button" variant="secondary" size="sm" loading={test.isPending} disabled={!me.data?.email} onClick={() => test.mutate()} data-testid="enrollment-test-send">
            <Send aria-hidden />
            {t("testSend")}
          </Button>
        </div>
        <Field label={t("subject")}>
          <Input data-testid="enrollment-email-subject" {...form.register("enrollment_welcome_email_subject")} />
        </Field>
        <Controller
          control={form.control}
          name="enrollment_use_welcome_message_as_email"
          render={({ field }) => (
            <SettingSwitch id="enrollment-use-message" label={t("useMessage")} hint={t("useMessageHint")} checked={field.value} onChange={field.onChange} />
          )}
        />
        {!v.enrollment_use_welcome_message_as_email && (
          <MarkdownEditor
            id="enrollment-welcome-email"
            label={t("email")}
            hint={t("placeholders", { list: PLACEHOLDERS })}
            value={v.enrollment_welcome_email ?? ""}
            register={form.register("enrollment_welcome_email")}
          />
        )}
      </section>

      <SettingsSaveBar save={save} dirty={form.formState.isDirty} labels={[t("discard"), t("save")]} saveTestId="enrollment-save" />
    </form>
  );
}

/** Enrollment (admin): the VPN step, the welcome message and the welcome e-mail (SPEC: enrolment settings). */
export function EnrollmentSettingsPage() {
  const t = useTranslations("enrollmentSettings");
  const settings = useSettings();
  return (
    <>
      <PageHeader title={t("title")} description={t("description")} />
      <div className="max-w-5xl">
        {settings.isError ? (
          <InlineError message={t("loadFailed")} detail={settings.error.message} onRetry={() => settings.refetch()} retrying={settings.isFetching} />
        ) : !settings.data ? (
          <Skeleton className="h-96 rounded-lg" />
        ) : (
          <EnrollmentForm settings={settings.data} />
        )}
      </div>
    </>
  );
}
