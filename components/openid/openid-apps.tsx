"use client";

import { useEffect, useState } from "react";
import { useTranslations } from "next-intl";
import { Controller, useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { queryOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";
import { Boxes, Pencil, Plus, Power, RefreshCw, Trash2 } from "lucide-react";
import { api } from "@/lib/api/client";
import type { OpenidClient } from "@/lib/oidc/clients";
import { OIDC_SCOPES, openidClientSchema } from "@/lib/oidc/schema";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { CopyField, type CopyFieldLabels } from "@/components/ui/copy-field";
import { DataTable, type DataColumn } from "@/components/ui/data-table";
import { Dialog, DialogContent, DialogFormFooter } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { PageHeader } from "@/components/ui/page-header";
import { Switch } from "@/components/ui/switch";
import { Textarea } from "@/components/ui/textarea";
import { toast } from "@/components/ui/toaster";
import { useSubmit } from "@/components/ui/use-submit";
import { useServerError } from "@/components/users/server-errors";

const appsQuery = queryOptions({ queryKey: ["oauth", "apps"], queryFn: ({ signal }) => api.get<OpenidClient[]>("/oauth", { signal }) });
const appPath = (clientId: string) => `/oauth/${encodeURIComponent(clientId)}`;

function useCopyLabels(): CopyFieldLabels {
  const t = useTranslations("openidApps.copy");
  return { copy: t("copy"), copied: t("copied"), insecure: t("insecure"), failed: t("failed") };
}

interface AppForm {
  name: string;
  /** One address a line. */
  redirect_uri: string;
  scope: string[];
  enabled: boolean;
}

const toBody = (v: AppForm) => ({ ...v, redirect_uri: v.redirect_uri.split("\n").map((u) => u.trim()).filter(Boolean) });

/** The shared schema over the body the form makes; each issue lands on its form field. */
const appFormSchema = z
  .object({ name: z.string(), redirect_uri: z.string(), scope: z.array(z.string()), enabled: z.boolean() })
  .superRefine((v, ctx) => {
    const r = openidClientSchema.safeParse(toBody(v));
    for (const issue of r.error?.issues ?? []) ctx.addIssue({ code: "custom", path: [String(issue.path[0] ?? "name")], message: issue.message });
  });

function formOf(app?: OpenidClient): AppForm {
  return {
    name: app?.name ?? "",
    redirect_uri: (app?.redirect_uri ?? []).join("\n"),
    scope: app?.scope ?? ["openid", "profile", "email"],
    enabled: app?.enabled ?? true,
  };
}

function AppDialog({ app, open, onOpenChange }: { app?: OpenidClient; open: boolean; onOpenChange: (o: boolean) => void }) {
  const t = useTranslations("openidApps");
  const labels = useCopyLabels();
  const client = useQueryClient();
  const serverError = useServerError();
  const form = useForm<AppForm>({ resolver: zodResolver(appFormSchema), mode: "onSubmit", defaultValues: formOf(app) });

  useEffect(() => {
    if (open) form.reset(formOf(app));
  }, [open, app, form]);

  const save = useSubmit(form, {
    mutationFn: async (v) => {
      const body = openidClientSchema.parse(toBody(v));
      if (app) await api.put(appPath(app.client_id), body);
      else await api.post("/oauth", body);
      return body;
    },
    success: (body) => t(app ? "saved" : "added", { name: body.name }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ["oauth"] });
      onOpenChange(false);
    },
    errorText: serverError,
    failure: t("saveFailed"),
  });
  const { errorOf } = save;
  const scopeError = errorOf("scope");

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent title={app ? t("dialog.editTitle") : t("dialog.addTitle")} data-testid="openid-app-dialog">
        <form noValidate onSubmit={save.onSubmit}>
          <div className="grid gap-4">
            <Field label={t("dialog.name")} error={errorOf("name")}>
              <Input data-testid="openid-app-name" {...form.register("name")} />
            </Field>
            <Field label={t("dialog.redirectUris")} hint={t("dialog.redirectUrisHint")} error={errorOf("redirect_uri")}>
              <Textarea rows={3} data-testid="openid-app-redirects" {...form.register("redirect_uri")} />
            </Field>
            <Controller
              control={form.control}
              name="scope"
              render={({ field }) => (
                <fieldset className="grid gap-2">
                  <legend className="mb-1 text-sm font-medium">{t("dialog.scopes")}</legend>
                  {OIDC_SCOPES.map((s) => (
                    <label key={s} className="flex items-center gap-2 text-sm">
                      <Checkbox
                        checked={field.value.includes(s)}
                        onCheckedChange={(c) => field.onChange(c ? [...field.value, s] : field.value.filter((x) => x !== s))}
                        data-testid={`openid-app-scope-${s}`}
                      />
                      <span className="font-mono text-xs">{s}</span>
                    </label>
                  ))}
                  {scopeError && <p className="text-xs font-medium text-error first-letter:uppercase">{scopeError}</p>}
                </fieldset>
              )}
            />
            <Controller
              control={form.control}
              name="enabled"
              render={({ field }) => (
                <label className="flex items-center gap-2 text-sm">
                  <Switch checked={field.value} onCheckedChange={field.onChange} data-testid="openid-app-enabled" />
                  {t("dialog.enabled")}
                </label>
              )}
            />
            {app && (
              <div className="grid gap-3">
                <Field label={t("clientId")}>
                  <CopyField value={app.client_id} labels={labels} data-testid="openid-app-client-id" />
                </Field>
                <Field label={t("clientSecret")}>
                  <CopyField value={app.client_secret} labels={labels} data-testid="openid-app-client-secret" />
                </Field>
              </div>
            )}
          </div>
          <DialogFormFooter submitLabel={t("dialog.save")} pending={save.pending} submitTestId="openid-app-save" />
        </form>
      </DialogContent>
    </Dialog>
  );
}

/** OpenID apps: list, add/edit, client id and secret with copy buttons, new secret, enable/disable, delete. */
export function OpenidApps() {
  const t = useTranslations("openidApps");
  const client = useQueryClient();
  const serverError = useServerError();
  const apps = useQuery(appsQuery);
  const [editing, setEditing] = useState<OpenidClient | null>(null);
  const [creating, setCreating] = useState(false);
  const columns: DataColumn<OpenidClient>[] = [
    {
      header: t("columns.name"),
      skeleton: "w-32",
      cell: (a) => (
        <>
          <button type="button" className="font-medium hover:underline" onClick={() => setEditing(a)}>
            {a.name}
          </button>
          <p className="text-xs text-fg-muted">{a.redirect_uri.join(", ")}</p>
        </>
      ),
    },
    { header: t("clientId"), skeleton: "w-40", className: "hidden md:table-cell", cellClassName: "font-mono text-xs", cell: (a) => a.client_id },
    {
      header: t("columns.state"),
      skeleton: "w-16",
      cell: (a) => <Badge tone={a.enabled ? "success" : undefined}>{a.enabled ? t("enabled") : t("disabled")}</Badge>,
    },
  ];

  async function act(run: () => Promise<unknown>, ok: string) {
    try {
      await run();
      toast.success(ok);
    } catch (err) {
      toast.error(t("saveFailed"), { subMessage: serverError(err) });
      throw err;
    } finally {
      await client.invalidateQueries({ queryKey: ["oauth"] });
    }
  }

  return (
    <>
      <PageHeader
        title={t("title")}
        description={t("description")}
        action={
          <Button data-testid="add-openid-app" onClick={() => setCreating(true)}>
            <Plus aria-hidden />
            {t("addApp")}
          </Button>
        }
      />
      <DataTable
        testId="openid-apps-table"
        columns={columns}
        rows={apps.data}
        rowKey={(a) => a.id}
        rowProps={(a) => ({ "data-testid": "openid-app-row", "data-app": a.name })}
        error={apps.isError ? { message: t("loadFailed"), detail: apps.error.message, onRetry: () => apps.refetch(), retrying: apps.isFetching } : null}
        empty={{ icon: Boxes, title: t("empty"), description: t("emptyHint") }}
        skeletonRows={3}
        actions={{
          columnLabel: t("columns.actions"),
          label: (a) => t("actions.open", { name: a.name }),
          testId: (a) => `openid-app-actions-${a.name}`,
          items: (a) => [
            { label: t("actions.edit"), icon: Pencil, onSelect: () => setEditing(a) },
            {
              label: a.enabled ? t("actions.disable") : t("actions.enable"),
              icon: Power,
              testId: "openid-app-toggle",
              onSelect: () =>
                void act(
                  () => api.post(appPath(a.client_id), { enabled: !a.enabled }),
                  a.enabled ? t("disabledToast", { name: a.name }) : t("enabledToast", { name: a.name }),
                ).catch(() => {}),
            },
            {
              label: t("actions.regenerate"),
              icon: RefreshCw,
              confirm: {
                title: t("regenerateTitle", { name: a.name }),
                description: t("regenerateDescription"),
                confirmLabel: t("actions.regenerate"),
                run: () => act(() => api.post(`${appPath(a.client_id)}/secret`), t("regenerated", { name: a.name })),
              },
            },
            {
              label: t("actions.delete"),
              icon: Trash2,
              danger: true,
              separated: true,
              testId: "openid-app-delete",
              confirm: {
                title: t("deleteTitle", { name: a.name }),
                description: t("deleteDescription"),
                confirmLabel: t("actions.delete"),
                run: () => act(() => api.delete(appPath(a.client_id)), t("deleted", { name: a.name })),
              },
            },
          ],
        }}
      />
      <AppDialog open={creating} onOpenChange={setCreating} />
      <AppDialog app={editing ?? undefined} open={editing !== null} onOpenChange={(o) => !o && setEditing(null)} />
    </>
  );
}
