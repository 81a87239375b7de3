"use client";

import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { queryOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { api } from "@/lib/api/client";
import type { licenceDetails } from "@/lib/enterprise/service";
import { licenceFormSchema, type LicenceForm } from "@/lib/settings/schema";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { formatDateInput } from "@/components/ui/date-input";
import { Field } from "@/components/ui/field";
import { InlineError } from "@/components/ui/inline-error";
import { Skeleton } from "@/components/ui/skeleton";
import { Textarea } from "@/components/ui/textarea";
import { useSubmit } from "@/components/ui/use-submit";
import { useServerError } from "@/components/users/server-errors";
import { appInfoQuery, enterpriseSettingsQuery, settingsQuery, type EnterpriseSettingsBody } from "./queries";

/** GET /license: the licence, plus the enterprise settings as stored and whether they are in force. */
export type LicenceBody = Awaited<ReturnType<typeof licenceDetails>> & { enterprise_settings: { in_force: boolean; stored: EnterpriseSettingsBody } };

export const licenceQuery = queryOptions({
  queryKey: ["license"],
  queryFn: ({ signal }) => api.get<LicenceBody>("/license", { signal }),
});

const TONE = { none: "neutral", invalid: "error", valid: "success", grace: "warning", expired: "error" } as const;
const KINDS = [
  ["users", "user"],
  ["devices", "device"],
  ["locations", "wireguard_network"],
  ["network_devices", "network_device"],
] as const;

const day = (iso: string) => formatDateInput(new Date(iso));

/** Settings → Enterprise features: the licence key, its state, and usage against the limits. */
export function LicenceCard() {
  const t = useTranslations("licence");
  const client = useQueryClient();
  const serverError = useServerError();
  const licence = useQuery(licenceQuery);
  const form = useForm<LicenceForm>({ resolver: zodResolver(licenceFormSchema), defaultValues: { license: "" } });

  const refresh = () =>
    Promise.all([licenceQuery, appInfoQuery, settingsQuery, enterpriseSettingsQuery].map((q) => client.invalidateQueries({ queryKey: q.queryKey })));

  const save = useSubmit(form, {
    mutationFn: (v) => api.patch("/settings", { license: v.license }),
    success: () => t("saved"),
    onSuccess: async () => {
      form.reset({ license: "" });
      await refresh();
    },
    errorText: serverError,
    failure: t("saveFailed"),
  });
  const remove = useSubmit(form, {
    mutationFn: () => api.patch("/settings", { license: null }),
    success: () => t("removed"),
    onSuccess: refresh,
    errorText: serverError,
    failure: t("saveFailed"),
  });

  const d = licence.data;
  return (
    <Card data-testid="licence-card">
      <CardHeader
        title={t("title")}
        description={t("description")}
        action={d ? <Badge tone={TONE[d.state]} data-testid="licence-state">{t(`state.${d.state}`)}</Badge> : undefined}
      />
      <CardBody className="flex flex-col gap-4">
        {licence.isError ? (
          <InlineError message={t("loadFailed")} detail={licence.error.message} onRetry={() => licence.refetch()} retrying={licence.isFetching} />
        ) : !d ? (
          <Skeleton className="h-24 rounded-md" />
        ) : (
          <>
            {d.state === "invalid" && <p className="text-sm text-error" data-testid="licence-error">{t("invalidReason", { reason: d.error ?? "" })}</p>}
            {d.customer && (
              <dl className="grid grid-cols-1 gap-x-6 gap-y-2 text-sm sm:grid-cols-2" data-testid="licence-details">
                <div>
                  <dt className="text-fg-muted">{t("customer")}</dt>
                  <dd className="text-fg">{d.customer}</dd>
                </div>
                <div>
                  <dt className="text-fg-muted">{t("tier")}</dt>
                  <dd className="text-fg">{d.tier}</dd>
                </div>
                <div>
                  <dt className="text-fg-muted">{t("type")}</dt>
                  <dd className="text-fg">{d.subscription ? t("subscription") : t("offline")}</dd>
                </div>
                <div>
                  <dt className="text-fg-muted">{t("validUntil")}</dt>
                  <dd className="text-fg">
                    {d.valid_until && day(d.valid_until)}
                    {d.grace_until && <span className="block text-xs text-fg-muted">{t("graceUntil", { date: day(d.grace_until) })}</span>}
                  </dd>
                </div>
              </dl>
            )}
            <div>
              <p className="mb-2 text-sm font-medium text-fg">{d.limits ? t("usage") : t("unlimited")}</p>
              <ul className="grid grid-cols-2 gap-2 text-sm sm:grid-cols-4" data-testid="licence-usage">
                {KINDS.map(([k, kind]) => (
                  <li key={k} className={d.limits_exceeded[kind] ? "rounded-md border border-error p-2 text-error" : "rounded-md border border-border p-2 text-fg"}>
                    <span className="block text-xs text-fg-muted">{t(`kinds.${k}`)}</span>
                    {d.usage[k]}
                    {d.limits ? ` / ${d.limits[k]}` : ""}
                  </li>
                ))}
              </ul>
              {!d.enterprise && <p className="mt-2 text-sm text-warning">{t("featuresOff")}</p>}
            </div>
          </>
        )}
        <form noValidate onSubmit={save.onSubmit} className="flex flex-col gap-3" data-testid="licence-form">
          <Field label={d?.state === "none" ? t("keyLabel") : t("replaceLabel")} error={save.errorOf("license")} hint={t("keyHint")}>
            <Textarea rows={3} spellCheck={false} className="font-mono text-xs" data-testid="licence-key" {...form.register("license")} />
          </Field>
          <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
            {d && d.state !== "none" && (
              <Button variant="secondary" type="button" loading={remove.pending} onClick={() => remove.send({ license: "" })} data-testid="licence-remove">
                {t("remove")}
              </Button>
            )}
            <Button type="submit" loading={save.pending} data-testid="licence-save">
              {t("save")}
            </Button>
          </div>
        </form>
      </CardBody>
    </Card>
  );
}
