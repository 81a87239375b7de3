"use client";

import { useEffect } from "react";
import { useTranslations } from "next-intl";
import { Controller, useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";
import { api } from "@/lib/api/client";
import { CLIENT_TRAFFIC_POLICY, enterpriseSettingsPatchSchema } from "@/lib/settings/schema";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { FormAlert } from "@/components/ui/form-alert";
import { useSubmit } from "@/components/ui/use-submit";
import { useServerError } from "@/components/users/server-errors";
import { licenceQuery } from "./licence-card";
import { enterpriseSettingsQuery, type EnterpriseSettingsBody } from "./queries";
import { SettingsSaveBar, SettingSwitch } from "./settings-form";

const formSchema = enterpriseSettingsPatchSchema.required();
type Values = z.input<typeof formSchema>;
type Parsed = z.output<typeof formSchema>;

/**
 * Settings → Enterprise features: device management, manual configs, client traffic policy.
 * `inForce` is GET /settings_enterprise (what applies); while enterprise features are not
 * available the stored values (GET /license) are shown read-only with a notice that the
 * defaults apply instead (docs/licence.md).
 */
export function EnterpriseTab({ settings: inForce }: { settings: EnterpriseSettingsBody }) {
  const t = useTranslations("settings.enterprise");
  const client = useQueryClient();
  const serverError = useServerError();
  const state = useQuery(licenceQuery).data?.enterprise_settings;
  const paused = state ? !state.in_force : false;
  const settings = paused && state ? state.stored : inForce;
  const form = useForm<Values, unknown, Parsed>({ resolver: zodResolver(formSchema), defaultValues: settings });
  const { isDirty } = form.formState;

  useEffect(() => {
    if (!form.formState.isDirty) form.reset(settings);
  }, [settings, form]);

  const save = useSubmit(form, {
    mutationFn: (v) => api.patch<EnterpriseSettingsBody>("/settings_enterprise", v),
    success: () => t("saved"),
    onSuccess: (saved) => {
      client.setQueryData(enterpriseSettingsQuery.queryKey, saved);
      form.reset(saved as Values);
      void client.invalidateQueries({ queryKey: licenceQuery.queryKey });
    },
    errorText: serverError,
    failure: t("saveFailed"),
    toastFieldErrors: true,
  });

  return (
    <form noValidate data-testid="enterprise-settings-form" onSubmit={save.onSubmit} className="flex flex-col gap-4">
      {paused && (
        <FormAlert tone="info" testId="enterprise-settings-not-in-force">
          {t("notInForce")}
        </FormAlert>
      )}
      <Card>
        <CardHeader title={t("devicesTitle")} description={t("devicesDescription")} />
        <CardBody className="divide-y divide-border py-1">
          <Controller
            control={form.control}
            name="admin_device_management"
            render={({ field }) => (
              <SettingSwitch id="setting-admin-device-management" label={t("adminDeviceManagement")} hint={t("adminDeviceManagementHint")} checked={field.value} disabled={paused} onChange={field.onChange} />
            )}
          />
          <Controller
            control={form.control}
            name="only_client_activation"
            render={({ field }) => (
              <SettingSwitch id="setting-only-client-activation" label={t("onlyClientActivation")} hint={t("onlyClientActivationHint")} checked={field.value} disabled={paused} onChange={field.onChange} />
            )}
          />
        </CardBody>
      </Card>
      <Card>
        <CardHeader title={t("trafficTitle")} description={t("trafficDescription")} />
        <CardBody>
          <Controller
            control={form.control}
            name="client_traffic_policy"
            render={({ field }) => (
              <fieldset className="flex flex-col gap-2" data-testid="setting-client-traffic-policy">
                <legend className="sr-only">{t("trafficTitle")}</legend>
                {CLIENT_TRAFFIC_POLICY.map((p) => (
                  <label
                    key={p}
                    className="flex cursor-pointer items-start gap-3 rounded-md border border-border p-3 has-[:checked]:border-accent has-[:checked]:bg-accent-subtle"
                  >
                    <input
                      type="radio"
                      name={field.name}
                      value={p}
                      checked={field.value === p}
                      disabled={paused}
                      onChange={() => field.onChange(p)}
                      className="mt-1 accent-accent"
                      data-testid={`setting-traffic-${p}`}
                    />
                    <span className="min-w-0">
                      <span className="block text-sm font-medium text-fg">{t(`policies.${p}`)}</span>
                      <span className="block text-xs text-fg-muted">{t(`policies.${p}Hint`)}</span>
                    </span>
                  </label>
                ))}
              </fieldset>
            )}
          />
        </CardBody>
      </Card>
      {!paused && <SettingsSaveBar save={{ pending: save.pending, discard: () => form.reset(settings) }} dirty={isDirty} labels={[t("discard"), t("save")]} saveTestId="enterprise-settings-save" />}
    </form>
  );
}
