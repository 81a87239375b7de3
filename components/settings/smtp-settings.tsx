"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { Controller, useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { z } from "zod";
import { CircleCheck, CircleAlert, Send, Undo2 } from "lucide-react";
import { api } from "@/lib/api/client";
import { SMTP_ENCRYPTION, smtpSettingsSchema, testMailSchema } from "@/lib/mail/schema";
import { useCurrentUser } from "@/components/auth/use-current-user";
import { useValidationMessages } from "@/components/forms/messages";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { toast } from "@/components/ui/toaster";
import { useSubmit } from "@/components/ui/use-submit";
import { isSmtpNotConfigured, useServerError } from "@/components/users/server-errors";
import { fromText } from "@/lib/validation";
import type { SettingsView } from "./queries";
import { useSettingsSave } from "./settings-form";

const shape = smtpSettingsSchema.shape;
type TextField = "smtp_server" | "smtp_port" | "smtp_user" | "smtp_password" | "smtp_sender";
const TEXT_FIELDS: TextField[] = ["smtp_server", "smtp_port", "smtp_user", "smtp_password", "smtp_sender"];

/** The shared SMTP schema, with empty inputs meaning "not set". */
const formSchema = z
  .object({
    smtp_encryption: shape.smtp_encryption,
    smtp_server: z.string(),
    smtp_port: z.string(),
    smtp_user: z.string(),
    smtp_password: z.string(),
    smtp_sender: z.string(),
  })
  .superRefine((v, ctx) => {
    for (const f of TEXT_FIELDS) {
      if (v[f].trim() === "") continue;
      const r = (f === "smtp_port" ? fromText(shape.smtp_port) : shape[f]).safeParse(v[f]);
      if (!r.success) ctx.addIssue({ code: "custom", path: [f], message: r.error.issues[0].message });
    }
  });
type Values = z.infer<typeof formSchema>;

function valuesOf(s: SettingsView): Values {
  return {
    smtp_encryption: s.smtp_encryption as Values["smtp_encryption"],
    smtp_server: s.smtp_server ?? "",
    smtp_port: s.smtp_port ? String(s.smtp_port) : "",
    smtp_user: s.smtp_user ?? "",
    smtp_password: "",
    smtp_sender: s.smtp_sender ?? "",
  };
}

function TestMail({ dirty }: { dirty: boolean }) {
  const t = useTranslations("settings.smtp.test");
  const me = useCurrentUser().data;
  const serverError = useServerError();
  const form = useForm<{ to: string }>({
    resolver: zodResolver(testMailSchema),
    mode: "onTouched",
    defaultValues: { to: me?.email ?? "" },
  });
  const send = useSubmit(form, {
    mutationFn: (v) => api.post("/mail/test", v),
    success: (_d, v) => t("sent", { to: v.to }),
    errorText: (err) => (isSmtpNotConfigured(err) ? t("notConfigured") : serverError(err)),
    // The server's SMTP reason can be long: the toast stays longer to be read.
    report: (text) => toast.error(t("failed"), { subMessage: text, lifetime: 12_000 }),
  });
  return (
    <Card>
      <CardHeader title={t("title")} description={t("description")} />
      <CardBody>
        <form
          noValidate
          onSubmit={send.onSubmit}
          className="flex flex-col gap-3 sm:flex-row sm:items-start"
        >
          <Field label={t("to")} error={send.errorOf("to")} className="flex-1">
            <Input type="email" data-testid="smtp-test-to" {...form.register("to")} />
          </Field>
          <Button type="submit" variant="secondary" loading={send.pending} className="h-9 sm:mt-[26px]" data-testid="smtp-test-send">
            <Send aria-hidden />
            {t("send")}
          </Button>
        </form>
        {dirty && <p className="mt-2 text-xs text-warning">{t("unsaved")}</p>}
      </CardBody>
    </Card>
  );
}

/** Settings → SMTP: encryption, server, port, user, write-only password, sender; and a test e-mail. */
export function SmtpSettings({ settings }: { settings: SettingsView }) {
  const t = useTranslations("settings.smtp");
  const { fromKey } = useValidationMessages();
  const [clearPassword, setClearPassword] = useState(false);

  const form = useForm<Values>({ resolver: zodResolver(formSchema), mode: "onTouched", defaultValues: valuesOf(settings) });
  const { errors, isDirty } = form.formState;
  const save = useSettingsSave(form, settings, {
    valuesOf,
    patch: (v) => ({
      smtp_encryption: v.smtp_encryption,
      smtp_server: v.smtp_server.trim() || null,
      smtp_port: v.smtp_port.trim() ? Number(v.smtp_port) : null,
      smtp_user: v.smtp_user.trim() || null,
      smtp_sender: v.smtp_sender.trim() || null,
      // "" keeps the stored password, null removes it.
      smtp_password: clearPassword ? null : v.smtp_password,
    }),
    fields: TEXT_FIELDS,
    saved: t("saved"),
    saveFailed: t("saveFailed"),
    onSaved: () => setClearPassword(false),
  });

  const passwordPlaceholder = clearPassword ? t("passwordWillClear") : settings.smtp_password_set ? t("passwordSet") : t("passwordNotSet");

  return (
    <div className="flex flex-col gap-4">
      <Card>
        <CardHeader
          title={t("title")}
          description={t("description")}
          action={
            settings.smtp_configured ? (
              <Badge tone="success" data-testid="smtp-status">
                <CircleCheck aria-hidden />
                {t("configured")}
              </Badge>
            ) : (
              <Badge tone="warning" data-testid="smtp-status">
                <CircleAlert aria-hidden />
                {t("notConfigured")}
              </Badge>
            )
          }
        />
        <CardBody>
          <form
            noValidate
            data-testid="smtp-form"
            onSubmit={save.onSubmit}
            className="flex flex-col gap-4"
          >
            <div className="grid gap-4 sm:grid-cols-[1fr_140px]">
              <Field label={t("server")} error={fromKey(errors.smtp_server?.message)} hint={t("serverHint")}>
                <Input data-testid="smtp-server" autoComplete="off" spellCheck={false} placeholder="smtp.example.com" {...form.register("smtp_server")} />
              </Field>
              <Field label={t("port")} error={fromKey(errors.smtp_port?.message)}>
                <Input data-testid="smtp-port" inputMode="numeric" placeholder="587" {...form.register("smtp_port")} />
              </Field>
            </div>
            <Field label={t("encryption")}>
              <Controller
                control={form.control}
                name="smtp_encryption"
                render={({ field }) => (
                  <Select value={field.value} onValueChange={field.onChange}>
                    <SelectTrigger data-testid="smtp-encryption">
                      <SelectValue />
                    </SelectTrigger>
                    <SelectContent>
                      {SMTP_ENCRYPTION.map((e) => (
                        <SelectItem key={e} value={e}>
                          {t(`encryptions.${e}`)}
                        </SelectItem>
                      ))}
                    </SelectContent>
                  </Select>
                )}
              />
            </Field>
            <div className="grid gap-4 sm:grid-cols-2">
              <Field label={t("user")} error={fromKey(errors.smtp_user?.message)}>
                <Input data-testid="smtp-user" autoComplete="off" spellCheck={false} {...form.register("smtp_user")} />
              </Field>
              <Field
                label={t("password")}
                error={fromKey(errors.smtp_password?.message)}
                hint={clearPassword ? t("passwordClearHint") : settings.smtp_password_set ? t("passwordKeepHint") : undefined}
              >
                <div className="flex gap-2">
                  <Input
                    data-testid="smtp-password"
                    type="password"
                    autoComplete="new-password"
                    placeholder={passwordPlaceholder}
                    disabled={clearPassword}
                    {...form.register("smtp_password")}
                  />
                  {settings.smtp_password_set &&
                    (clearPassword ? (
                      <Button variant="secondary" className="h-9" onClick={() => setClearPassword(false)}>
                        <Undo2 aria-hidden />
                        {t("undo")}
                      </Button>
                    ) : (
                      <Button
                        variant="secondary"
                        className="h-9"
                        data-testid="smtp-password-clear"
                        onClick={() => {
                          form.setValue("smtp_password", "");
                          setClearPassword(true);
                        }}
                      >
                        {t("clear")}
                      </Button>
                    ))}
                </div>
              </Field>
            </div>
            <Field label={t("sender")} error={fromKey(errors.smtp_sender?.message)} hint={t("senderHint")}>
              <Input data-testid="smtp-sender" type="email" placeholder="vpn@example.com" {...form.register("smtp_sender")} />
            </Field>
            <div className="flex flex-col-reverse gap-2 border-t border-border pt-4 sm:flex-row sm:justify-end">
              <Button
                variant="secondary"
                disabled={(!isDirty && !clearPassword) || save.pending}
                onClick={() => {
                  save.discard();
                  setClearPassword(false);
                }}
              >
                {t("discard")}
              </Button>
              <Button type="submit" loading={save.pending} disabled={!isDirty && !clearPassword} data-testid="smtp-save">
                {t("save")}
              </Button>
            </div>
          </form>
        </CardBody>
      </Card>
      <TestMail dirty={isDirty || clearPassword} />
    </div>
  );
}
