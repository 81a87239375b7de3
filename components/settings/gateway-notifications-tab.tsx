"use client";

import Link from "next/link";
import { useTranslations } from "next-intl";
import { Controller, useForm, useWatch } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { z } from "zod";
import { Info, TriangleAlert } from "lucide-react";
import { settingsPatchSchema } from "@/lib/settings/schema";
import { useValidationMessages } from "@/components/forms/messages";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { fromText } from "@/lib/validation";
import { useAppInfo, type SettingsView } from "./queries";
import { SettingsSaveBar, SettingSwitch, useSettingsSave } from "./settings-form";

const shape = settingsPatchSchema.shape;
/** The shared settings schema's rules for the three fields (threshold: whole minutes, 1..10080). */
const formSchema = z.object({
  gateway_disconnect_notifications_enabled: z.boolean(),
  gateway_disconnect_notifications_inactivity_threshold: fromText(shape.gateway_disconnect_notifications_inactivity_threshold.unwrap()),
  gateway_disconnect_notifications_reconnect_notification_enabled: z.boolean(),
});
type Values = z.input<typeof formSchema>;
type Parsed = z.output<typeof formSchema>;

function valuesOf(s: SettingsView): Values {
  return {
    gateway_disconnect_notifications_enabled: s.gateway_disconnect_notifications_enabled,
    gateway_disconnect_notifications_inactivity_threshold: String(s.gateway_disconnect_notifications_inactivity_threshold),
    gateway_disconnect_notifications_reconnect_notification_enabled: s.gateway_disconnect_notifications_reconnect_notification_enabled,
  };
}

/** Settings → Gateway notifications: e-mail admins when a gateway disconnects (and reconnects). */
export function GatewayNotificationsTab({ settings }: { settings: SettingsView }) {
  const t = useTranslations("settings.gatewayNotifications");
  const info = useAppInfo();
  const { fromKey } = useValidationMessages();

  const form = useForm<Values, unknown, Parsed>({ resolver: zodResolver(formSchema), mode: "onTouched", defaultValues: valuesOf(settings) });
  const { errors, isDirty } = form.formState;
  const enabled = useWatch({ control: form.control, name: "gateway_disconnect_notifications_enabled" });
  const save = useSettingsSave(form, settings, { valuesOf, saved: t("saved"), saveFailed: t("saveFailed") });

  const smtpMissing = info.data ? !info.data.smtp_enabled : false;
  return (
    <form
      noValidate
      data-testid="gateway-notifications-form"
      onSubmit={save.onSubmit}
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
                <SettingSwitch id="setting-gateway-disconnect" label={t("disconnect")} hint={t("disconnectHint")} checked={field.value} onChange={field.onChange} />
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
                <SettingSwitch
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

      <SettingsSaveBar save={save} dirty={isDirty} labels={[t("discard"), t("save")]} saveTestId="gateway-notifications-save" />
    </form>
  );
}
