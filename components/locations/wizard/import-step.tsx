"use client";

import { useRef, useState, type ChangeEvent, type DragEvent } from "react";
import { Controller, useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import type { z } from "zod";
import { FileUp, FileText, X } from "lucide-react";
import { api } from "@/lib/api/client";
import { importSchema } from "@/lib/locations/schema";
import { useApiErrorText } from "@/components/devices/errors";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { useSubmit } from "@/components/ui/use-submit";
import { GroupsPicker } from "../groups-picker";
import { locationKeys, type ImportResult, type ImportResultBody } from "../api";

type FormIn = z.input<typeof importSchema>;
type FormOut = z.output<typeof importSchema>;
const FIELDS = ["name", "endpoint", "config", "allowed_groups"] as const;
const MAX_BYTES = 512 * 1024;

interface ImportStepProps {
  onImported: (result: ImportResult) => void;
  onBack: () => void;
}

/** Name, endpoint and a wg-quick file (uploaded or pasted) → POST /network/import. */
export function ImportStep({ onImported, onBack }: ImportStepProps) {
  const t = useTranslations("wizard.import");
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  const fileInput = useRef<HTMLInputElement>(null);
  const [fileName, setFileName] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);

  const form = useForm<FormIn, unknown, FormOut>({
    resolver: zodResolver(importSchema),
    mode: "onBlur",
    defaultValues: { name: "", endpoint: "", config: "", allowed_groups: [] },
  });

  const send = useSubmit(form, {
    mutationFn: (body) => api.post<ImportResultBody>("/network/import", body),
    success: (r) => t("imported", { name: r.network.name, count: r.devices.length }),
    onSuccess: (r) => {
      void queryClient.invalidateQueries({ queryKey: locationKeys.all });
      void queryClient.invalidateQueries({ queryKey: ["info"] });
      onImported(r);
    },
    errorText,
    failure: t("failed"),
    fields: FIELDS,
    // The file's problems can sit far down the form: the toast says them too.
    toastFieldErrors: true,
  });

  async function readFile(file: File | undefined) {
    if (!file) return;
    if (file.size > MAX_BYTES) {
      form.setError("config", { message: t("tooLarge") });
      return;
    }
    const text = await file.text();
    setFileName(file.name);
    form.setValue("config", text, { shouldValidate: true, shouldDirty: true });
    // The file's name is a good first guess for the location's name ("wg0.conf" → "wg0").
    if (!form.getValues("name")) form.setValue("name", file.name.replace(/\.conf$/i, ""), { shouldValidate: true });
  }

  const onFile = (e: ChangeEvent<HTMLInputElement>) => {
    void readFile(e.target.files?.[0]);
    e.target.value = "";
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    void readFile(e.dataTransfer.files?.[0]);
  };

  const { errorOf } = send;
  const configError = errorOf("config");

  return (
    <form
      noValidate
      data-testid="import-form"
      onSubmit={send.onSubmit}
      className="flex flex-col gap-4"
    >
      <Card>
        <CardHeader title={t("title")} description={t("description")} />
        <CardBody className="grid gap-4 md:grid-cols-2">
          <Field label={t("name")} error={errorOf("name")}>
            <Input autoComplete="off" data-testid="import-name" {...form.register("name")} />
          </Field>
          <Field label={t("endpoint")} error={errorOf("endpoint")} hint={t("endpointHint")}>
            <Input className="font-mono" autoComplete="off" spellCheck={false} placeholder="vpn.example.com" data-testid="import-endpoint" {...form.register("endpoint")} />
          </Field>
          <Field label={t("allowedGroups")} error={errorOf("allowed_groups")} hint={t("allowedGroupsHint")} className="md:col-span-2">
            <Controller
              control={form.control}
              name="allowed_groups"
              render={({ field }) => <GroupsPicker value={field.value ?? []} onChange={field.onChange} />}
            />
          </Field>
        </CardBody>
      </Card>

      <Card>
        <CardHeader title={t("fileTitle")} description={t("fileDescription")} />
        <CardBody className="flex flex-col gap-3">
          <div
            onDragOver={(e) => {
              e.preventDefault();
              setDragging(true);
            }}
            onDragLeave={() => setDragging(false)}
            onDrop={onDrop}
            className={cn(
              "flex flex-col items-center gap-2 rounded-lg border border-dashed px-4 py-6 text-center transition-colors",
              dragging ? "border-accent bg-accent-subtle/50" : "border-border-strong",
            )}
          >
            {fileName ? (
              <span className="inline-flex max-w-full items-center gap-2 rounded-md bg-subtle px-2 py-1 text-sm ring-1 ring-inset ring-border">
                <FileText className="size-4 shrink-0 text-fg-muted" aria-hidden />
                <span className="truncate font-mono text-xs" data-testid="import-file-name">
                  {fileName}
                </span>
                <button
                  type="button"
                  aria-label={t("removeFile")}
                  onClick={() => {
                    setFileName(null);
                    form.setValue("config", "");
                  }}
                  className="rounded-sm p-0.5 text-fg-subtle hover:bg-hover hover:text-fg focus-visible:outline-2"
                >
                  <X className="size-3.5" aria-hidden />
                </button>
              </span>
            ) : (
              <FileUp className="size-6 text-fg-subtle" aria-hidden />
            )}
            <p className="text-sm text-fg-muted">{t("dropHint")}</p>
            <Button variant="secondary" size="sm" onClick={() => fileInput.current?.click()}>
              {t("chooseFile")}
            </Button>
            <input
              ref={fileInput}
              type="file"
              accept=".conf,text/plain"
              className="sr-only"
              tabIndex={-1}
              aria-hidden
              onChange={onFile}
              data-testid="import-file"
            />
          </div>
          <Field label={t("paste")} error={configError} hint={t("pasteHint")}>
            <Textarea
              rows={8}
              className="font-mono text-xs"
              spellCheck={false}
              placeholder={"[Interface]\nPrivateKey = …\nAddress = 10.7.0.1/24\nListenPort = 51820\n\n[Peer]\nPublicKey = …\nAllowedIPs = 10.7.0.2/32"}
              data-testid="import-config"
              {...form.register("config", { onChange: () => setFileName(null) })}
            />
          </Field>
        </CardBody>
      </Card>

      <div className="flex justify-between gap-2">
        <Button variant="secondary" onClick={onBack} disabled={send.pending}>
          {t("back")}
        </Button>
        <Button type="submit" loading={send.pending} data-testid="import-submit">
          {t("submit")}
        </Button>
      </div>
    </form>
  );
}
