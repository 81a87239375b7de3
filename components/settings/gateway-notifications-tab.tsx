"use client";

import { useEffect, useRef } from "react";
import Link from "next/link";
import { useTranslations } from "next-intl";
import { Controller, useForm, useWatch } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";
import { Info, TriangleAlert } from "lucide-react";
import { api, ApiBadRequestError } from "@/lib/api/client";
import { settingsPatchSchema } from "@/lib/settings/schema";
import { useValidationMessages } from "@/components/forms/messages";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Switch } from "@/components/ui/switch";
import { toast } from "@/components/ui/toaster";
import { useServerError } from "@/components/users/server-errors";
import { fromText } from "@/lib/validation";
import { settingsQuery, useAppInfo, type SettingsView, type SettingsViewBody } from "./queries";

const shape = settingsPatchSchema.shape;
/** The shared settings schema's rules for the three fields (threshold: whole minutes, 1..10080). */
const formSchema = z.object({
  gateway_disconnect_notifications_enabled: z.boolean(),
  gateway_disconnect_notifications_inactivity_threshold: fromText(shape.gateway_disconnect_notifications_inactivity_threshold.unwrap()),
  gateway_disconnect_notifications_reconnect_notification_enabled: z.boolean(),
});
type Values = z.input<typeof formSchema>;
type Parsed = z.output<typeof formSchema>;
const FIELDS = Object.keys(formSchema.shape) as (keyof Values)[];

function valuesOf(s: SettingsView): Values {
  return {
    gateway_disconnect_notifications_enabled: s.gateway_disconnect_notifications_enabled,
    gateway_disconnect_notifications_inactivity_threshold: String(s.gateway_disconnect_notifications_inactivity_threshold),
    gateway_disconnect_notifications_reconnect_notification_enabled: s.gateway_disconnect_notifications_reconnect_notification_enabled,
  };
}

function SwitchRow({ id, label, hint, checked, disabled, onChange }: { id: string; label: string; hint: string; checked: boolean; disabled?: boolean; onChange: (v: boolean) => void }) {
  return (
    <div className="flex items-start justify-between gap-4 py-3">
      <div className="min-w-0">
        <label htmlFor={id} className={disabled ? "text-sm font-medium text-fg-subtle" : "text-sm font-medium text-fg"}>
          {label}
        </label>
        <p className="text-xs text-fg-muted">{hint}</p>
      </div>
      <Switch id={id} data-testid={id} checked={checked} disabled={disabled} onCheckedChange={onChange} />
    </div>
  );
}

/** Settings → Gateway notifications: e-mail admins when a gateway disconnects (and reconnects). */
export function GatewayNotificationsTab({ settings }: { settings: SettingsView }) {
  const t = useTranslations("settings.gatewayNotifications");
  const client = useQueryClient();
  const info = useAppInfo();
  const { fromKey } = useValidationMessages();
  const serverError = useServerError();
  const sending = useRef(false);

  const form = useForm<Values, unknown, Parsed>({ resolver: zodResolver(formSchema), mode: "onTouched", defaultValues: valuesOf(settings) });
  const { errors, isDirty } = form.formState;
  const enabled = useWatch({ control: form.control, name: "gateway_disconnect_notifications_enabled" });

  useEffect(() => {
    if (!form.formState.isDirty) form.reset(valuesOf(settings));
  }, [settings, form]);

  const save = useMutation({
    mutationFn: (v: Parsed) => api.patch<SettingsViewBody>("/settings", v),
    onSettled: () => {
      sending.current = false;
    },
    onSuccess: (saved) => {
      client.setQueryData(settingsQuery.queryKey, saved);
      form.reset(valuesOf(saved as SettingsView));
      toast.success(t("saved"));
    },
    onError: (err) => {
      if (err instanceof ApiBadRequestError && err.field && (FIELDS as string[]).includes(err.field)) {
        form.setError(err.field as keyof Values, { message: serverError(err) });
        return;
      }
      toast.error(t("saveFailed"), { subMessage: serverError(err) });
    },
  });

  const smtpMissing = info.data ? !info.data.smtp_enabled : false;
  return (
    <form
      noValidate
      data-testid="gateway-notifications-form"
      onSubmit={form.handleSubmit((v) => {
        if (sending.current) return;
        sending.current = true;
        save.mutate(v);
      })}
      className="flex flex-col gap-4"
    >
      <Card>
        <CardHeader title={t("title")} description={t("description")} />
        <CardBody className="flex flex-col gap-1 py-1">
          {smtpMissing ? (
            <p className="mt-3 flex items-start gap-2 rounded-md bg-warning-subtle px-3 py-2 text-xs text-fg" data-testid="gateway-notifications-smtp-missing">
              <TriangleAlert className="mt-px size-3.5 shrink-0 text-warning" aria-hidden />
              <span>
                {t("smtpMissing")}{" "}
                <Link href="/settings" className="font-medium text-accent underline underline-offset-2">
                  {t("smtpLink")}
                </Link>
              </span>
            </p>
          ) : (
            <p className="mt-3 flex items-start gap-2 rounded-md bg-info-subtle px-3 py-2 text-xs text-fg">
              <Info className="mt-px size-3.5 shrink-0 text-info" aria-hidden />
              {t("smtpNote")}
            </p>
          )}
          <div className="divide-y divide-border">
            <Controller
              control={form.control}
              name="gateway_disconnect_notifications_enabled"
              render={({ field }) => (
                <SwitchRow id="setting-gateway-disconnect" label={t("disconnect")} hint={t("disconnectHint")} checked={field.value} onChange={field.onChange} />
              )}
            />
            <div className="py-3">
              <Field label={t("threshold")} hint={t("thresholdHint")} error={fromKey(errors.gateway_disconnect_notifications_inactivity_threshold?.message)} className="max-w-xs">
                <Input
                  type="number"
                  inputMode="numeric"
                  min={1}
                  max={10080}
                  step={1}
                  // Read-only, not disabled: react-hook-form drops the values of disabled inputs.
                  readOnly={!enabled}
                  aria-disabled={!enabled || undefined}
                  className={enabled ? undefined : "opacity-55"}
                  data-testid="setting-gateway-threshold"
                  {...form.register("gateway_disconnect_notifications_inactivity_threshold")}
                />
              </Field>
            </div>
            <Controller
              control={form.control}
              name="gateway_disconnect_notifications_reconnect_notification_enabled"
              render={({ field }) => (
                <SwitchRow
                  id="setting-gateway-reconnect"
                  label={t("reconnect")}
                  hint={t("reconnectHint")}
                  checked={field.value}
                  disabled={!enabled}
                  onChange={field.onChange}
                />
              )}
            />
          </div>
        </CardBody>
      </Card>

      <div className="sticky bottom-0 z-10 -mx-1 flex flex-col-reverse gap-2 bg-canvas/90 px-1 py-3 backdrop-blur sm:flex-row sm:justify-end">
        <Button variant="secondary" disabled={!isDirty || save.isPending} onClick={() => form.reset(valuesOf(settings))}>
          {t("discard")}
        </Button>
        <Button type="submit" loading={save.isPending} disabled={!isDirty} data-testid="gateway-notifications-save">
          {t("save")}
        </Button>
      </div>
    </form>
  );
}
