"use client";

import { useEffect, useState } from "react";
import { useTranslations } from "next-intl";
import { Controller, useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { queryOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import { z } from "zod";
import { Boxes, KeyRound, Pencil, Plus, Power, RefreshCw, Trash2 } from "lucide-react";
import { api } from "@/lib/api/client";
import type { OpenidClient } from "@/lib/oidc/clients";
import { OIDC_SCOPES, openidClientSchema } from "@/lib/oidc/schema";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { CopyField, type CopyFieldLabels } from "@/components/ui/copy-field";
import { DataTable, type DataColumn } from "@/components/ui/data-table";
import { Dialog, DialogClose, DialogContent, DialogFooter, DialogFormFooter } from "@/components/ui/dialog";
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

/** The form edits the redirect URLs as lines of text; the request carries them as a list. */
const formSchema = openidClientSchema.extend({
  // Any problem (an empty list, a bad line) is reported on the one text field.
  redirect_uri: z.string().transform((v, ctx) => {
    const r = openidClientSchema.shape.redirect_uri.safeParse(v.split("\n").map((u) => u.trim()).filter(Boolean));
    if (r.success) return r.data;
    ctx.addIssue({ code: "custom", message: r.error.issues[0]?.message ?? "" });
    return z.NEVER;
  }),
});
type FormInput = z.input<typeof formSchema>;
type FormOutput = z.output<typeof formSchema>;

function useCopyLabels(): CopyFieldLabels {
  const t = useTranslations("openidApps.copy");
  return { copy: t("copy"), copied: t("copied"), insecure: t("insecure"), failed: t("failed") };
}

/** Client ID and secret with copy buttons. */
function Credentials({ app }: { app: OpenidClient }) {
  const t = useTranslations("openidApps");
  const labels = useCopyLabels();
  return (
    <div className="grid gap-3" data-testid="openid-app-credentials">
      <Field label={t("clientId")}>
        <CopyField value={app.client_id} labels={labels} data-testid="openid-app-client-id" />
      </Field>
      <Field label={t("clientSecret")}>
        <CopyField value={app.client_secret} labels={labels} data-testid="openid-app-client-secret" />
      </Field>
    </div>
  );
}

function AppDialog({ app, open, onOpenChange, onCreated }: { app?: OpenidClient; open: boolean; onOpenChange: (o: boolean) => void; onCreated?: (app: OpenidClient) => void }) {
  const t = useTranslations("openidApps");
  const client = useQueryClient();
  const serverError = useServerError();
  const form = useForm<FormInput, unknown, FormOutput>({
    resolver: zodResolver(formSchema),
    mode: "onTouched",
    defaultValues: { name: "", redirect_uri: "", scope: ["openid", "profile", "email"], enabled: true },
  });

  useEffect(() => {
    if (open)
      form.reset({
        name: app?.name ?? "",
        redirect_uri: (app?.redirect_uri ?? []).join("\n"),
        scope: (app?.scope ?? ["openid", "profile", "email"]) as FormInput["scope"],
        enabled: app?.enabled ?? true,
      });
  }, [open, app, form]);

  const save = useSubmit(form, {
    mutationFn: (v) => (app ? api.put<OpenidClient>(appPath(app.client_id), v) : api.post<OpenidClient>("/oauth", v)),
    success: (_r, v) => t(app ? "saved" : "added", { name: v.name }),
    onSuccess: async (created) => {
      onOpenChange(false);
      if (!app && created) onCreated?.(created);
      await client.invalidateQueries({ queryKey: ["oauth"] });
    },
    errorText: serverError,
    failure: t("saveFailed"),
    fields: ["name", "redirect_uri", "scope"],
  });
  const { errorOf } = save;

  return (
    <Dialog open={open} onOpenChange={(next) => !save.pending && onOpenChange(next)}>
      <DialogContent title={app ? t("dialog.editTitle") : t("dialog.addTitle")} data-testid="openid-app-dialog" className="max-w-lg">
        <form noValidate onSubmit={save.onSubmit} className="flex flex-col gap-4">
          <Field label={t("dialog.name")} error={errorOf("name")}>
            <Input autoComplete="off" autoFocus data-testid="openid-app-name" {...form.register("name")} />
          </Field>
          <Field label={t("dialog.redirectUris")} hint={t("dialog.redirectUrisHint")} error={errorOf("redirect_uri")}>
            <Textarea rows={3} spellCheck={false} className="font-mono text-xs" data-testid="openid-app-redirects" {...form.register("redirect_uri")} />
          </Field>
          <Controller
            control={form.control}
            name="scope"
            render={({ field }) => (
              <fieldset className="grid gap-2">
                <legend className="mb-1 text-sm font-medium">{t("dialog.scopes")}</legend>
                <div className="flex flex-wrap gap-x-5 gap-y-2">
                  {OIDC_SCOPES.map((s) => (
                    <label key={s} className="flex items-center gap-2 text-sm">
                      <Checkbox
                        checked={(field.value ?? []).includes(s)}
                        onCheckedChange={(c) => {
                          const cur = field.value ?? [];
                          field.onChange(c ? [...cur.filter((x) => x !== s), s] : cur.filter((x) => x !== s));
                        }}
                        data-testid={`openid-app-scope-${s}`}
                      />
                      <span className="font-mono text-xs">{s}</span>
                    </label>
                  ))}
                </div>
                {errorOf("scope") && (
                  <p className="text-sm text-danger" role="alert" data-testid="openid-app-scope-error">
                    {errorOf("scope")}
                  </p>
                )}
              </fieldset>
            )}
          />
          <Controller
            control={form.control}
            name="enabled"
            render={({ field }) => (
              <label className="flex items-center gap-2 text-sm">
                <Switch checked={field.value ?? true} onCheckedChange={field.onChange} data-testid="openid-app-enabled" />
                {t("dialog.enabled")}
              </label>
            )}
          />
          {app && <Credentials app={app} />}
          <DialogFormFooter submitLabel={t("dialog.save")} pending={save.pending} submitTestId="openid-app-save" />
        </form>
      </DialogContent>
    </Dialog>
  );
}

/** Shown once an app is added (or its secret renewed): what to give the application. */
function CredentialsDialog({ app, onClose }: { app: OpenidClient | null; onClose: () => void }) {
  const t = useTranslations("openidApps");
  return (
    <Dialog open={app !== null} onOpenChange={(o) => !o && onClose()}>
      <DialogContent title={t("credentials.title", { name: app?.name ?? "" })} description={t("credentials.description")} data-testid="openid-app-credentials-dialog" className="max-w-lg">
        {app && <Credentials app={app} />}
        <DialogFooter className="mt-2">
          <DialogClose asChild>
            <Button data-testid="openid-app-credentials-close">{t("credentials.done")}</Button>
          </DialogClose>
        </DialogFooter>
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
  const [showing, setShowing] = useState<OpenidClient | null>(null);
  const [busy, setBusy] = useState<string | null>(null);

  async function act<R>(clientId: string, run: () => Promise<R>, ok: string): Promise<R> {
    setBusy(clientId);
    try {
      const r = await run();
      toast.success(ok);
      return r;
    } catch (err) {
      toast.error(t("saveFailed"), { subMessage: serverError(err) });
      throw err;
    } finally {
      setBusy(null);
      await client.invalidateQueries({ queryKey: ["oauth"] });
    }
  }

  const columns: DataColumn<OpenidClient>[] = [
    {
      header: t("columns.name"),
      skeleton: "w-32",
      cellClassName: "max-w-0 w-full md:w-[40%]",
      cell: (a) => (
        <>
          <button type="button" className="block max-w-full truncate text-left font-medium text-fg hover:underline focus-visible:outline-2" onClick={() => setEditing(a)}>
            {a.name}
          </button>
          <p className="truncate text-xs text-fg-muted" data-testid="openid-app-redirect-list">
            {a.redirect_uri.join(", ")}
          </p>
        </>
      ),
    },
    {
      header: t("columns.scopes"),
      skeleton: "w-40",
      className: "hidden lg:table-cell",
      cell: (a) => (
        <span className="flex flex-wrap gap-1">
          {a.scope.map((s) => (
            <Badge key={s} className="font-mono">
              {s}
            </Badge>
          ))}
        </span>
      ),
    },
    {
      header: t("clientId"),
      skeleton: "w-40",
      className: "hidden md:table-cell",
      cellClassName: "font-mono text-xs text-fg-muted",
      cell: (a) => a.client_id,
    },
    {
      header: t("columns.state"),
      skeleton: "w-16",
      cell: (a) => (
        <Badge tone={a.enabled ? "success" : undefined} data-testid="openid-app-state">
          {a.enabled ? t("enabled") : t("disabled")}
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
        skeletonRows={3}
        error={apps.isError ? { message: t("loadFailed"), detail: apps.error.message, onRetry: () => void apps.refetch(), retrying: apps.isFetching } : null}
        empty={{
          icon: Boxes,
          title: t("empty"),
          description: t("emptyHint"),
          action: (
            <Button onClick={() => setCreating(true)}>
              <Plus aria-hidden />
              {t("addApp")}
            </Button>
          ),
        }}
        rowProps={(a) => ({ "data-testid": "openid-app-row", "data-app": a.name })}
        actions={{
          label: (a) => t("actions.open", { name: a.name }),
          columnLabel: t("columns.actions"),
          testId: (a) => `openid-app-actions-${a.name}`,
          busy: (a) => busy === a.client_id,
          items: (a) => [
            { label: t("actions.edit"), icon: Pencil, testId: "openid-app-edit", onSelect: () => setEditing(a) },
            { label: t("actions.credentials"), icon: KeyRound, testId: "openid-app-show-credentials", onSelect: () => setShowing(a) },
            {
              label: a.enabled ? t("actions.disable") : t("actions.enable"),
              icon: Power,
              testId: "openid-app-toggle",
              onSelect: () =>
                void act(a.client_id, () => api.post(appPath(a.client_id), { enabled: !a.enabled }), t(a.enabled ? "disabledToast" : "enabledToast", { name: a.name })).catch(() => {}),
            },
            {
              label: t("actions.regenerate"),
              icon: RefreshCw,
              testId: "openid-app-regenerate",
              confirm: {
                title: t("regenerateTitle", { name: a.name }),
                description: t("regenerateDescription"),
                confirmLabel: t("actions.regenerate"),
                danger: true,
                run: async () => {
                  const renewed = await act(a.client_id, () => api.post<OpenidClient>(`${appPath(a.client_id)}/secret`), t("regenerated", { name: a.name }));
                  setShowing(renewed);
                },
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
                danger: true,
                run: () => act(a.client_id, () => api.delete(appPath(a.client_id)), t("deleted", { name: a.name })),
              },
            },
          ],
        }}
      />
      <AppDialog open={creating} onOpenChange={setCreating} onCreated={setShowing} />
      <AppDialog app={editing ?? undefined} open={editing !== null} onOpenChange={(o) => !o && setEditing(null)} />
      <CredentialsDialog app={showing} onClose={() => setShowing(null)} />
    </>
  );
}
