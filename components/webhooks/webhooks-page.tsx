"use client";

import { useEffect, useState } from "react";
import { useTranslations } from "next-intl";
import { Controller, useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { queryOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import { History, Pencil, Plus, Power, RotateCw, Trash2, Webhook as WebhookIcon } from "lucide-react";
import { api, type Stripped } from "@/lib/api/client";
import type { Delivery as DeliveryWire, Webhook } from "@/lib/webhooks/service";
import { webhookSchema } from "@/lib/webhooks/schema";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { DataTable, type DataColumn } from "@/components/ui/data-table";
import { Dialog, DialogContent, DialogFormFooter } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { PageHeader } from "@/components/ui/page-header";
import { RelativeTime } from "@/components/ui/relative-time";
import { Switch } from "@/components/ui/switch";
import { toast } from "@/components/ui/toaster";
import { useSubmit } from "@/components/ui/use-submit";
import { useServerError } from "@/components/users/server-errors";

/** A delivery-log row as the client sees it (nulls read as undefined). */
type Delivery = Stripped<DeliveryWire>;
type FormInput = z.input<typeof webhookSchema>;
type FormOutput = z.output<typeof webhookSchema>;

const hooksQuery = queryOptions({ queryKey: ["webhooks"], queryFn: ({ signal }) => api.get<Webhook[]>("/webhook", { signal }) });
const hookPath = (id: number) => `/webhook/${id}`;

const TRIGGERS = ["on_user_created", "on_user_modified", "on_user_deleted", "on_hwkey_provision"] as const;

function WebhookDialog({ hook, open, onOpenChange }: { hook?: Webhook; open: boolean; onOpenChange: (o: boolean) => void }) {
  const t = useTranslations("webhooks.dialog");
  const tt = useTranslations("webhooks.triggers");
  const client = useQueryClient();
  const serverError = useServerError();
  const form = useForm<FormInput, unknown, FormOutput>({
    resolver: zodResolver(webhookSchema),
    mode: "onTouched",
    defaultValues: { url: "", description: "", token: "", enabled: true, on_user_created: false, on_user_deleted: false, on_user_modified: false, on_hwkey_provision: false },
  });

  useEffect(() => {
    if (!open) return;
    form.reset({
      url: hook?.url ?? "",
      description: hook?.description ?? "",
      token: hook?.token ?? "",
      enabled: hook?.enabled ?? true,
      on_user_created: hook?.on_user_created ?? true,
      on_user_deleted: hook?.on_user_deleted ?? false,
      on_user_modified: hook?.on_user_modified ?? false,
      on_hwkey_provision: hook?.on_hwkey_provision ?? false,
    });
  }, [open, hook, form]);

  const save = useSubmit(form, {
    mutationFn: (v) => (hook ? api.put(hookPath(hook.id), v) : api.post("/webhook", v)),
    success: (_r, v) => (hook ? t("saved", { url: v.url }) : t("added", { url: v.url })),
    onSuccess: async () => {
      onOpenChange(false);
      await client.invalidateQueries({ queryKey: ["webhooks"] });
    },
    errorText: serverError,
    failure: t("saveFailed"),
    fields: ["url", "description", "token", "on_user_created"],
  });
  const { errorOf } = save;

  return (
    <Dialog open={open} onOpenChange={(next) => !save.pending && onOpenChange(next)}>
      <DialogContent data-testid="webhook-dialog" title={hook ? t("editTitle") : t("addTitle")} description={t("description")} className="max-w-lg">
        <form noValidate onSubmit={save.onSubmit} className="flex flex-col gap-4">
          <Field label={t("url")} error={errorOf("url")} hint={t("urlHint")}>
            <Input data-testid="webhook-url" inputMode="url" autoComplete="off" autoFocus placeholder="https://" {...form.register("url")} />
          </Field>
          <Field label={t("descriptionLabel")} error={errorOf("description")}>
            <Input data-testid="webhook-description" autoComplete="off" {...form.register("description")} />
          </Field>
          <Field label={t("token")} error={errorOf("token")} hint={t("tokenHint")}>
            <Input data-testid="webhook-token" autoComplete="off" spellCheck={false} className="font-mono" {...form.register("token")} />
          </Field>
          <fieldset className="grid gap-2">
            <legend className="mb-1 text-sm font-medium text-fg">{t("triggers")}</legend>
            {TRIGGERS.map((name) => (
              <Controller
                key={name}
                control={form.control}
                name={name}
                render={({ field }) => (
                  <label className="flex items-center gap-2 text-sm text-fg">
                    <Checkbox
                      checked={field.value ?? false}
                      onCheckedChange={(c) => {
                        field.onChange(c === true);
                        form.clearErrors("on_user_created");
                      }}
                      data-testid={`webhook-${name}`}
                    />
                    {tt(name)}
                  </label>
                )}
              />
            ))}
            {errorOf("on_user_created") && (
              <p className="text-sm text-error" role="alert" data-testid="webhook-trigger-error">
                {errorOf("on_user_created")}
              </p>
            )}
          </fieldset>
          <Controller
            control={form.control}
            name="enabled"
            render={({ field }) => (
              <label className="flex items-center gap-2 text-sm text-fg">
                <Switch checked={field.value ?? true} onCheckedChange={field.onChange} data-testid="webhook-enabled" />
                {t("enabled")}
              </label>
            )}
          />
          <DialogFormFooter submitLabel={hook ? t("save") : t("add")} pending={save.pending} submitTestId="webhook-submit" />
        </form>
      </DialogContent>
    </Dialog>
  );
}

const STATE_TONE = { delivered: "success", pending: "warning", failed: "error" } as const;

/** The last 100 deliveries of one webhook, refreshed while open, with "retry now". */
function DeliveryLog({ hook, onOpenChange }: { hook: Webhook | null; onOpenChange: (o: boolean) => void }) {
  const t = useTranslations("webhooks.log");
  const serverError = useServerError();
  const client = useQueryClient();
  const [busy, setBusy] = useState<string | null>(null);
  const log = useQuery({
    queryKey: ["webhooks", hook?.id, "deliveries"],
    queryFn: ({ signal }) => api.get<DeliveryWire[]>(`${hookPath(hook!.id)}/delivery`, { signal }),
    enabled: hook !== null,
    refetchInterval: 3000,
  });

  async function retry(d: Delivery) {
    setBusy(d.id);
    try {
      await api.post(`${hookPath(hook!.id)}/delivery/${d.id}/retry`);
      toast.success(t("retried"));
    } catch (err) {
      toast.error(t("retryFailed"), { subMessage: serverError(err) });
    } finally {
      setBusy(null);
      await client.invalidateQueries({ queryKey: ["webhooks", hook?.id, "deliveries"] });
    }
  }

  const columns: DataColumn<Delivery>[] = [
    {
      header: t("columns.event"),
      skeleton: "w-24",
      cell: (d) => (
        <>
          <span className="font-mono text-xs">{d.event}</span>
          <p className="text-xs text-fg-muted">
            <RelativeTime value={d.created_at} />
          </p>
        </>
      ),
    },
    {
      header: t("columns.state"),
      skeleton: "w-16",
      cell: (d) => (
        <Badge tone={STATE_TONE[d.state as keyof typeof STATE_TONE] ?? "neutral"} data-testid="delivery-state">
          {t(`state.${d.state}` as never)}
        </Badge>
      ),
    },
    { header: t("columns.attempts"), skeleton: "w-8", cellClassName: "tabular-nums", cell: (d) => <span data-testid="delivery-attempts">{d.attempts}</span> },
    {
      header: t("columns.response"),
      skeleton: "w-10",
      cellClassName: "max-w-0 w-[35%]",
      cell: (d) => (
        <div className="min-w-0">
          <span className="font-mono text-xs tabular-nums" data-testid="delivery-code">
            {d.response_code ?? "—"}
          </span>
          {d.error && (
            <p className="truncate text-xs text-fg-muted" title={d.error}>
              {d.error}
            </p>
          )}
        </div>
      ),
    },
    {
      header: t("columns.next"),
      skeleton: "w-16",
      className: "hidden sm:table-cell",
      cell: (d) =>
        d.state === "pending" && d.attempts === 0 ? (
          // Not tried yet: it goes out after the deliveries queued before it.
          <span className="text-xs text-fg-muted">{t("queued")}</span>
        ) : d.state === "pending" && d.next_attempt_at ? (
          <RelativeTime value={d.next_attempt_at} />
        ) : d.delivered_at ? (
          <span className="text-xs text-fg-muted">
            {t("deliveredAt")} <RelativeTime value={d.delivered_at} />
          </span>
        ) : (
          <span className="text-fg-subtle">—</span>
        ),
    },
  ];

  return (
    <Dialog open={hook !== null} onOpenChange={onOpenChange}>
      <DialogContent data-testid="delivery-log" title={t("title")} description={hook ? t("description", { url: hook.url }) : undefined} className="max-w-3xl">
        <DataTable
          className="max-h-[60dvh]"
          testId="delivery-table"
          columns={columns}
          rows={log.data}
          rowKey={(d) => d.id}
          skeletonRows={3}
          error={log.isError ? { message: t("loadFailed"), detail: log.error.message, onRetry: () => void log.refetch(), retrying: log.isFetching } : null}
          empty={{ icon: History, title: t("empty"), description: t("emptyHint") }}
          rowProps={(d) => ({ "data-testid": "delivery-row", "data-state": d.state })}
          actions={{
            label: (d) => t("actionsFor", { event: d.event }),
            columnLabel: t("columns.actions"),
            testId: "delivery-actions",
            busy: (d) => busy === d.id,
            items: (d) => [{ label: t("retryNow"), icon: RotateCw, testId: "delivery-retry", disabled: d.state === "delivered", onSelect: () => void retry(d) }],
          }}
        />
      </DialogContent>
    </Dialog>
  );
}

/** Webhooks: list, add/edit (URL, description, token, triggers), enable/disable, delete, delivery log. */
export function WebhooksPage() {
  const t = useTranslations("webhooks");
  const tt = useTranslations("webhooks.triggers");
  const client = useQueryClient();
  const serverError = useServerError();
  const hooks = useQuery(hooksQuery);
  const [editing, setEditing] = useState<Webhook | null>(null);
  const [creating, setCreating] = useState(false);
  const [logOf, setLogOf] = useState<Webhook | null>(null);

  async function act(run: () => Promise<unknown>, ok: string, failed: string) {
    try {
      await run();
      toast.success(ok);
    } catch (err) {
      toast.error(failed, { subMessage: serverError(err) });
      throw err;
    } finally {
      await client.invalidateQueries({ queryKey: ["webhooks"] });
    }
  }

  const columns: DataColumn<Webhook>[] = [
    {
      header: t("columns.url"),
      skeleton: "w-48",
      cellClassName: "w-full max-w-0 sm:w-[45%]",
      cell: (h) => (
        <>
          <button type="button" onClick={() => setEditing(h)} className="block max-w-full truncate text-left font-medium text-fg hover:underline focus-visible:outline-2" title={h.url}>
            {h.url}
          </button>
          {h.description && <p className="truncate text-xs text-fg-muted">{h.description}</p>}
        </>
      ),
    },
    {
      header: t("columns.triggers"),
      skeleton: "w-32",
      className: "hidden md:table-cell",
      cell: (h) => (
        <span className="flex flex-wrap gap-1">
          {TRIGGERS.filter((k) => h[k]).map((k) => (
            <Badge key={k}>{tt(k)}</Badge>
          ))}
        </span>
      ),
    },
    {
      header: t("columns.state"),
      skeleton: "w-16",
      cell: (h) => (
        <Badge tone={h.enabled ? "success" : undefined} data-testid="webhook-state">
          {h.enabled ? t("enabled") : t("disabled")}
        </Badge>
      ),
    },
  ];

  return (
    <>
      <PageHeader
        title={t("title")}
        description={t("description")}
        action={
          <Button data-testid="add-webhook" onClick={() => setCreating(true)}>
            <Plus aria-hidden />
            {t("add")}
          </Button>
        }
      />
      <DataTable
        className="md:max-h-[calc(100dvh-200px)]"
        testId="webhooks-table"
        columns={columns}
        rows={hooks.data}
        rowKey={(h) => h.id}
        skeletonRows={3}
        error={hooks.isError ? { message: t("loadFailed"), detail: hooks.error.message, onRetry: () => void hooks.refetch(), retrying: hooks.isFetching } : null}
        empty={{
          icon: WebhookIcon,
          title: t("empty"),
          description: t("emptyHint"),
          action: (
            <Button onClick={() => setCreating(true)}>
              <Plus aria-hidden />
              {t("add")}
            </Button>
          ),
        }}
        rowProps={(h) => ({ "data-testid": "webhook-row", "data-url": h.url })}
        actions={{
          label: (h) => t("actions.open", { url: h.url }),
          columnLabel: t("columns.actions"),
          testId: (h) => `webhook-actions-${h.id}`,
          items: (h) => [
            { label: t("actions.edit"), icon: Pencil, testId: "webhook-action-edit", onSelect: () => setEditing(h) },
            { label: t("actions.log"), icon: History, testId: "webhook-action-log", onSelect: () => setLogOf(h) },
            {
              label: h.enabled ? t("actions.disable") : t("actions.enable"),
              icon: Power,
              testId: "webhook-action-toggle",
              onSelect: () =>
                void act(() => api.post(hookPath(h.id), { enabled: !h.enabled }), h.enabled ? t("disabledToast") : t("enabledToast"), t("saveFailed")).catch(() => {}),
            },
            {
              label: t("actions.delete"),
              icon: Trash2,
              danger: true,
              separated: true,
              testId: "webhook-action-delete",
              confirm: {
                title: t("deleteTitle"),
                description: t("deleteDescription", { url: h.url }),
                confirmLabel: t("actions.delete"),
                danger: true,
                run: () => act(() => api.delete(hookPath(h.id)), t("deleted"), t("deleteFailed")),
              },
            },
          ],
        }}
      />
      <WebhookDialog open={creating} onOpenChange={setCreating} />
      <WebhookDialog hook={editing ?? undefined} open={editing !== null} onOpenChange={(o) => !o && setEditing(null)} />
      <DeliveryLog hook={logOf} onOpenChange={(o) => !o && setLogOf(null)} />
    </>
  );
}
