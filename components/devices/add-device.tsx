"use client";

import { useState } from "react";
import Link from "next/link";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { useTranslations } from "next-intl";
import { ArrowLeft, CheckCircle2, Info, Plus } from "lucide-react";
import { api } from "@/lib/api/client";
import { addDeviceFormSchema } from "@/lib/devices/schema";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { PageHeader } from "@/components/ui/page-header";
import { Textarea } from "@/components/ui/textarea";
import { useSubmit } from "@/components/ui/use-submit";
import { deviceKeys, type CreatedDevice, type CreatedDeviceBody } from "./api";
import { ConfigResult } from "./config-result";
import { useApiErrorText } from "./errors";
import { KeyMethodField } from "./key-method";
import { useDevicePermissions } from "./permissions";
import { generateKeyPair } from "./wg-keys";

interface AddDeviceProps {
  /** Whose device it is. */
  username: string;
  /** The signed-in user adds for themselves (otherwise an admin adds for `username`). */
  self: boolean;
}

interface Result {
  created: CreatedDevice;
  /** Only in generated mode; kept in this component's memory and nowhere else. */
  privateKey: string | null;
}

type Values = z.input<typeof addDeviceFormSchema>;
type Parsed = z.output<typeof addDeviceFormSchema>;

/** Add device page: name and key, then the configs (with the browser-made private key, once). */
export function AddDevice({ username, self }: AddDeviceProps) {
  const t = useTranslations("devices.add");
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  const [result, setResult] = useState<Result | null>(null);
  const backHref = self ? "/devices" : `/devices?user=${encodeURIComponent(username)}`;

  const form = useForm<Values, unknown, Parsed>({
    resolver: zodResolver(addDeviceFormSchema),
    mode: "onBlur",
    defaultValues: { name: "", description: "", method: "generate", wireguard_pubkey: "" },
  });
  const method = form.watch("method");
  const can = useDevicePermissions();

  const create = useSubmit(form, {
    mutationFn: async (v): Promise<Result> => {
      const keys = v.method === "generate" ? await generateKeyPair() : null;
      const created = await api.post<CreatedDeviceBody>(`/device/${encodeURIComponent(username)}`, {
        name: v.name,
        description: v.description,
        wireguard_pubkey: keys ? keys.publicKey : v.wireguard_pubkey.trim(),
      });
      return { created, privateKey: keys?.privateKey ?? null };
    },
    success: (r) => t("added", { name: r.created.device.name }),
    onSuccess: (r) => {
      setResult(r);
      void queryClient.invalidateQueries({ queryKey: deviceKeys.user(username) });
      void queryClient.invalidateQueries({ queryKey: ["user", username] });
    },
    errorText,
    failure: t("failed"),
    // A generated key the server refused: say it about the method, not a hidden field.
    toastFieldErrors: (field) => field === "wireguard_pubkey" && form.getValues("method") === "generate",
  });
  const { errorOf, onSubmit } = create;

  function addAnother() {
    setResult(null);
    create.reset();
    form.reset({ name: "", description: "", method: form.getValues("method"), wireguard_pubkey: "" });
  }

  if (!can.canAdd) {
    return (
      <>
        <PageHeader title={t("title")} />
        <EmptyState
          icon={Info}
          title={t(`restricted.${can.reason ?? "adminOnly"}Title`)}
          description={t(`restricted.${can.reason ?? "adminOnly"}`)}
          action={
            <Button variant="secondary" asChild>
              <Link href={backHref}>
                <ArrowLeft aria-hidden />
                {t("back")}
              </Link>
            </Button>
          }
        />
      </>
    );
  }

  if (result) {
    const { created, privateKey } = result;
    return (
      <>
        <PageHeader
          title={
            <span className="inline-flex items-center gap-2">
              <CheckCircle2 className="size-5 text-success" aria-hidden />
              {t("readyTitle", { name: created.device.name })}
            </span>
          }
          description={created.configs.length ? t("readyDescription", { count: created.configs.length }) : undefined}
          action={
            <>
              <Button variant="secondary" onClick={addAnother} data-testid="add-another">
                <Plus aria-hidden />
                {t("another")}
              </Button>
              <Button asChild>
                <Link href={backHref}>{t("done")}</Link>
              </Button>
            </>
          }
        />
        <ConfigResult
          deviceName={created.device.name}
          privateKey={privateKey}
          configs={created.configs.map((c) => ({ id: c.network_id, locationName: c.network_name, config: c.config }))}
        />
      </>
    );
  }

  return (
    <>
      <PageHeader
        title={t("title")}
        description={self ? t("description") : t.rich("descriptionFor", { user: username, mono: (s) => <span className="font-mono text-fg">{s}</span> })}
        action={
          <Button variant="ghost" asChild>
            <Link href={backHref}>
              <ArrowLeft aria-hidden />
              {t("back")}
            </Link>
          </Button>
        }
      />
      <Card className="max-w-2xl">
        <CardHeader title={t("formTitle")} description={t("formDescription")} />
        <CardBody>
          <form onSubmit={onSubmit} noValidate className="flex flex-col gap-5" data-testid="add-device-form">
            <Field label={t("name")} error={errorOf("name")} hint={t("nameHint")}>
              <Input autoComplete="off" autoFocus data-testid="device-name" {...form.register("name")} />
            </Field>
            <Field label={t("descriptionLabel")} error={errorOf("description")}>
              <Textarea rows={2} data-testid="device-description" {...form.register("description")} />
            </Field>
            <KeyMethodField
              value={method}
              onChange={(m) => {
                form.setValue("method", m);
                form.clearErrors("wireguard_pubkey");
              }}
              disabled={create.pending}
            />
            {method === "own" && (
              <Field label={t("publicKey")} error={errorOf("wireguard_pubkey")} hint={t("publicKeyHint")}>
                <Input
                  className="font-mono text-xs"
                  autoComplete="off"
                  spellCheck={false}
                  placeholder="xTIBA5rboUvnH4htodjb6e697QjLERt1NAB4mZqp8Dg="
                  data-testid="device-pubkey"
                  {...form.register("wireguard_pubkey")}
                />
              </Field>
            )}
            {method === "generate" && <p className="-mt-2 text-xs text-fg-muted">{t("generateNote")}</p>}
            <div className="flex justify-end gap-2 border-t border-border pt-4">
              <Button variant="secondary" asChild>
                <Link href={backHref}>{t("cancel")}</Link>
              </Button>
              <Button type="submit" loading={create.pending} data-testid="add-device-submit">
                {t("submit")}
              </Button>
            </div>
          </form>
        </CardBody>
      </Card>
    </>
  );
}
