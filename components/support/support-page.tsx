"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { Download, Mail, Save } from "lucide-react";
import { api } from "@/lib/api/client";
import { supportAddressSchema, type SupportAddress } from "@/lib/settings/schema";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { InlineError } from "@/components/ui/inline-error";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { toast } from "@/components/ui/toaster";
import { useSubmit } from "@/components/ui/use-submit";
import { downloadText } from "@/components/ui/download";
import { settingsQuery, useSettings } from "@/components/settings/queries";
import { isSmtpNotConfigured, useServerError } from "@/components/users/server-errors";

/**
 * Support (admins): download the support bundle (configuration with secrets redacted, versions,
 * gateway states, recent log lines) or e-mail it to the support address kept here.
 */
export function SupportPage() {
  const t = useTranslations("support");
  const settings = useSettings();
  const client = useQueryClient();
  const serverError = useServerError();
  const [downloading, setDownloading] = useState(false);
  const [sending, setSending] = useState(false);

  const form = useForm<SupportAddress>({
    resolver: zodResolver(supportAddressSchema),
    mode: "onTouched",
    values: { support_email: settings.data?.support_email ?? "" },
  });
  const save = useSubmit(form, {
    mutationFn: (v) => api.patch("/settings", { support_email: v.support_email }),
    success: () => t("addressSaved"),
    onSuccess: () => client.invalidateQueries({ queryKey: settingsQuery.queryKey }),
    errorText: serverError,
    failure: t("addressFailed"),
  });

  const download = async () => {
    setDownloading(true);
    try {
      const bundle = await api.get<unknown>("/support/bundle");
      downloadText(`defguard-support-${new Date().toISOString().replace(/[:.]/g, "-")}.json`, JSON.stringify(bundle, null, 2), "application/json");
      toast.success(t("downloaded"));
    } catch (err) {
      toast.error(t("downloadFailed"), { subMessage: serverError(err) });
    } finally {
      setDownloading(false);
    }
  };

  const send = async () => {
    setSending(true);
    try {
      const { to } = await api.post<{ to: string }>("/mail/support");
      toast.success(t("sent", { to }));
    } catch (err) {
      // The support email error of the catalogue, with the server's reason (bounce, SMTP off).
      toast.error(t("sendFailed"), { subMessage: isSmtpNotConfigured(err) ? t("smtpNotConfigured") : serverError(err), lifetime: 12_000 });
    } finally {
      setSending(false);
    }
  };

  const saved = settings.data?.support_email ?? "";
  return (
    <>
      <PageHeader title={t("title")} description={t("description")} />
      <div className="flex max-w-3xl flex-col gap-4" data-testid="support-page">
        <Card>
          <CardHeader title={t("bundleTitle")} description={t("bundleDescription")} />
          <CardBody className="flex flex-wrap gap-2">
            <Button onClick={download} loading={downloading} data-testid="support-download">
              <Download aria-hidden />
              {t("download")}
            </Button>
            <Button variant="secondary" onClick={send} loading={sending} disabled={!saved} data-testid="support-send">
              <Mail aria-hidden />
              {saved ? t("send", { to: saved }) : t("sendNoAddress")}
            </Button>
          </CardBody>
        </Card>
        <Card>
          <CardHeader title={t("addressTitle")} description={t("addressDescription")} />
          <CardBody>
            {settings.isError ? (
              <InlineError message={t("loadFailed")} detail={settings.error.message} onRetry={() => settings.refetch()} retrying={settings.isFetching} />
            ) : !settings.data ? (
              <Skeleton className="h-9 rounded-md" />
            ) : (
              <form noValidate onSubmit={save.onSubmit} className="flex flex-col gap-3 sm:flex-row sm:items-start">
                <Field label={t("address")} error={save.errorOf("support_email")} className="flex-1">
                  <Input type="email" data-testid="support-email" placeholder="support@example.com" {...form.register("support_email")} />
                </Field>
                <Button type="submit" variant="secondary" loading={save.pending} className="h-9 sm:mt-[26px]" data-testid="support-email-save">
                  <Save aria-hidden />
                  {t("saveAddress")}
                </Button>
              </form>
            )}
          </CardBody>
        </Card>
      </div>
    </>
  );
}
