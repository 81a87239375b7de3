"use client";

import { useEffect, useState } from "react";
import { useTranslations } from "next-intl";
import { Controller, useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { queryOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { Pencil, Plus, ScrollText, Trash2 } from "lucide-react";
import { api, type Stripped } from "@/lib/api/client";
import type { LogStream as LogStreamWire } from "@/lib/webhooks/streams";
import { logStreamSchema, STREAM_TYPES } from "@/lib/webhooks/schema";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { DataTable, type DataColumn } from "@/components/ui/data-table";
import { Dialog, DialogContent, DialogFormFooter } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { RelativeTime } from "@/components/ui/relative-time";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { Textarea } from "@/components/ui/textarea";
import { toast } from "@/components/ui/toaster";
import { useSubmit } from "@/components/ui/use-submit";
import { useServerError } from "@/components/users/server-errors";

type LogStream = Stripped<LogStreamWire>;
type FormInput = z.input<typeof logStreamSchema>;
type FormOutput = z.output<typeof logStreamSchema>;

const streamsQuery = queryOptions({
  queryKey: ["activity_log_stream"],
  queryFn: ({ signal }) => api.get<LogStreamWire[]>("/activity_log_stream", { signal }),
  refetchInterval: 5000,
});
const FIELDS = ["name", "stream_type", "stream_config.url", "stream_config.username", "stream_config.password", "stream_config.cert"] as const;

function StreamDialog({ stream, open, onOpenChange }: { stream?: LogStream; open: boolean; onOpenChange: (o: boolean) => void }) {
  const t = useTranslations("settings.logStreams");
  const client = useQueryClient();
  const serverError = useServerError();
  const form = useForm<FormInput, unknown, FormOutput>({
    resolver: zodResolver(logStreamSchema),
    mode: "onTouched",
    defaultValues: { name: "", stream_type: "vector_http", stream_config: { url: "", username: "", password: "", cert: "" } },
  });
  useEffect(() => {
    if (!open) return;
    form.reset({
      name: stream?.name ?? "",
      stream_type: stream?.stream_type ?? "vector_http",
      stream_config: {
        url: stream?.config.url ?? "",
        username: stream?.config.username ?? "",
        password: stream?.config.password ?? "",
        cert: stream?.config.cert ?? "",
      },
    });
  }, [open, stream, form]);

  const save = useSubmit(form, {
    mutationFn: (v) => (stream ? api.put(`/activity_log_stream/${stream.id}`, v) : api.post("/activity_log_stream", v)),
    success: (_r, v) => t(stream ? "saved" : "added", { name: v.name }),
    onSuccess: async () => {
      onOpenChange(false);
      await client.invalidateQueries({ queryKey: ["activity_log_stream"] });
    },
    errorText: serverError,
    failure: t("saveFailed"),
    fields: FIELDS,
  });
  const { errorOf } = save;

  return (
    <Dialog open={open} onOpenChange={(next) => !save.pending && onOpenChange(next)}>
      <DialogContent data-testid="log-stream-dialog" title={stream ? t("editTitle") : t("addTitle")} description={t("dialogDescription")} className="max-w-lg">
        <form noValidate onSubmit={save.onSubmit} className="flex flex-col gap-4">
          <Field label={t("name")} error={errorOf("name")}>
            <Input data-testid="log-stream-name" autoComplete="off" autoFocus {...form.register("name")} />
          </Field>
          <Field label={t("type")} error={errorOf("stream_type")}>
            <Controller
              control={form.control}
              name="stream_type"
              render={({ field }) => (
                <Select value={field.value} onValueChange={field.onChange}>
                  <SelectTrigger data-testid="log-stream-type">
                    <SelectValue />
                  </SelectTrigger>
                  <SelectContent>
                    {STREAM_TYPES.map((k) => (
                      <SelectItem key={k} value={k}>
                        {t(`types.${k}`)}
                      </SelectItem>
                    ))}
                  </SelectContent>
                </Select>
              )}
            />
          </Field>
          <Field label={t("url")} error={errorOf("stream_config.url")} hint={t("urlHint")}>
            <Input data-testid="log-stream-url" inputMode="url" autoComplete="off" placeholder="https://" {...form.register("stream_config.url")} />
          </Field>
          <div className="grid gap-4 sm:grid-cols-2">
            <Field label={t("username")} error={errorOf("stream_config.username")}>
              <Input data-testid="log-stream-username" autoComplete="off" {...form.register("stream_config.username")} />
            </Field>
            <Field label={t("password")} error={errorOf("stream_config.password")}>
              <Input data-testid="log-stream-password" type="password" autoComplete="new-password" {...form.register("stream_config.password")} />
            </Field>
          </div>
          <Field label={t("cert")} error={errorOf("stream_config.cert")} hint={t("certHint")}>
            <Textarea data-testid="log-stream-cert" rows={4} spellCheck={false} className="font-mono text-xs" placeholder="-----BEGIN CERTIFICATE-----" {...form.register("stream_config.cert")} />
          </Field>
          <DialogFormFooter submitLabel={stream ? t("save") : t("add")} pending={save.pending} submitTestId="log-stream-submit" />
        </form>
      </DialogContent>
    </Dialog>
  );
}

/** Settings → Activity log streaming: Vector / Logstash HTTP targets with their delivery status. */
export function LogStreamsTab() {
  const t = useTranslations("settings.logStreams");
  const client = useQueryClient();
  const serverError = useServerError();
  const streams = useQuery(streamsQuery);
  const [editing, setEditing] = useState<LogStream | null>(null);
  const [creating, setCreating] = useState(false);

  async function remove(s: LogStream) {
    try {
      await api.delete(`/activity_log_stream/${s.id}`);
      toast.success(t("deleted", { name: s.name }));
    } catch (err) {
      toast.error(t("deleteFailed"), { subMessage: serverError(err) });
      throw err;
    } finally {
      await client.invalidateQueries({ queryKey: ["activity_log_stream"] });
    }
  }

  const columns: DataColumn<LogStream>[] = [
    {
      header: t("columns.name"),
      skeleton: "w-32",
      cellClassName: "max-w-0 w-[40%]",
      cell: (s) => (
        <>
          <button type="button" onClick={() => setEditing(s)} className="block max-w-full truncate text-left font-medium text-fg hover:underline">
            {s.name}
          </button>
          <p className="truncate text-xs text-fg-muted" title={s.config.url}>
            <Badge className="mr-1">{t(`types.${s.stream_type}`)}</Badge>
            {s.config.url}
          </p>
        </>
      ),
    },
    {
      header: t("columns.lastSuccess"),
      skeleton: "w-20",
      className: "hidden sm:table-cell",
      cell: (s) => (s.status.last_success ? <RelativeTime value={s.status.last_success} /> : <span className="text-fg-subtle">{t("never")}</span>),
    },
    {
      header: t("columns.backlog"),
      skeleton: "w-10",
      cellClassName: "tabular-nums",
      cell: (s) => (
        <span className="inline-flex items-center gap-1">
          <Badge tone={s.status.backlog > 0 ? "warning" : "success"} data-testid="log-stream-backlog">
            {s.status.backlog}
          </Badge>
          {s.status.paused && (
            <Badge tone="warning" title={s.status.paused} data-testid="log-stream-paused">
              {t("paused")}
            </Badge>
          )}
        </span>
      ),
    },
    {
      header: t("columns.lastError"),
      skeleton: "w-32",
      cellClassName: "max-w-0 w-[30%]",
      cell: (s) =>
        s.status.paused ? (
          <p className="truncate text-xs text-warning" title={s.status.paused} data-testid="log-stream-paused-reason">
            {t("pausedHint")}
          </p>
        ) : s.status.last_error ? (
          <p className="truncate text-xs text-error" title={s.status.last_error} data-testid="log-stream-error">
            {s.status.last_error}
          </p>
        ) : (
          <span className="text-fg-subtle">—</span>
        ),
    },
  ];

  return (
    <section className="flex flex-col gap-4" data-testid="log-streams">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h2 className="text-base font-semibold text-fg">{t("title")}</h2>
          <p className="text-sm text-fg-muted">{t("description")}</p>
        </div>
        <Button data-testid="add-log-stream" onClick={() => setCreating(true)}>
          <Plus aria-hidden />
          {t("add")}
        </Button>
      </div>
      <DataTable
        testId="log-streams-table"
        columns={columns}
        rows={streams.data}
        rowKey={(s) => s.id}
        skeletonRows={2}
        error={streams.isError ? { message: t("loadFailed"), detail: streams.error.message, onRetry: () => void streams.refetch(), retrying: streams.isFetching } : null}
        empty={{ icon: ScrollText, title: t("empty"), description: t("emptyHint") }}
        rowProps={(s) => ({ "data-testid": "log-stream-row", "data-name": s.name })}
        actions={{
          label: (s) => t("actionsFor", { name: s.name }),
          columnLabel: t("columns.actions"),
          testId: (s) => `log-stream-actions-${s.id}`,
          items: (s) => [
            { label: t("edit"), icon: Pencil, onSelect: () => setEditing(s) },
            {
              label: t("delete"),
              icon: Trash2,
              danger: true,
              separated: true,
              testId: "log-stream-delete",
              confirm: { title: t("deleteTitle", { name: s.name }), description: t("deleteDescription"), confirmLabel: t("delete"), danger: true, run: () => remove(s) },
            },
          ],
        }}
      />
      <StreamDialog open={creating} onOpenChange={setCreating} />
      <StreamDialog stream={editing ?? undefined} open={editing !== null} onOpenChange={(o) => !o && setEditing(null)} />
    </section>
  );
}
