"use client";

import { useEffect, useState } from "react";
import { useTranslations } from "next-intl";
import { queryOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import { Boxes, Ellipsis, Pencil, Plus, Power, RefreshCw, Trash2 } from "lucide-react";
import { api } from "@/lib/api/client";
import type { OpenidClient } from "@/lib/oidc/clients";
import { OIDC_SCOPES, openidClientSchema } from "@/lib/oidc/schema";
import { useValidationMessages } from "@/components/forms/messages";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { CopyField, type CopyFieldLabels } from "@/components/ui/copy-field";
import { Dialog, DialogClose, DialogContent, DialogFooter } from "@/components/ui/dialog";
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuSeparator, DropdownMenuTrigger } from "@/components/ui/dropdown-menu";
import { EmptyState } from "@/components/ui/empty-state";
import { Field } from "@/components/ui/field";
import { InlineError } from "@/components/ui/inline-error";
import { Input } from "@/components/ui/input";
import { PageHeader } from "@/components/ui/page-header";
import { Switch } from "@/components/ui/switch";
import { Table, TableBody, TableCell, TableContainer, TableHead, TableHeader, TableMessageRow, TableRow, TableSkeletonRows } from "@/components/ui/table";
import { Textarea } from "@/components/ui/textarea";
import { toast } from "@/components/ui/toaster";
import { useServerError } from "@/components/users/server-errors";

const appsQuery = queryOptions({ queryKey: ["oauth", "apps"], queryFn: ({ signal }) => api.get<OpenidClient[]>("/oauth", { signal }) });
const appPath = (clientId: string) => `/oauth/${encodeURIComponent(clientId)}`;

function useCopyLabels(): CopyFieldLabels {
  const t = useTranslations("openidApps.copy");
  return { copy: t("copy"), copied: t("copied"), insecure: t("insecure"), failed: t("failed") };
}

function AppDialog({ app, open, onOpenChange }: { app?: OpenidClient; open: boolean; onOpenChange: (o: boolean) => void }) {
  const t = useTranslations("openidApps");
  const labels = useCopyLabels();
  const client = useQueryClient();
  const serverError = useServerError();
  const { fromKey } = useValidationMessages();
  const [name, setName] = useState("");
  const [uris, setUris] = useState("");
  const [scopes, setScopes] = useState<string[]>(["openid"]);
  const [enabled, setEnabled] = useState(true);
  const [error, setError] = useState<{ field: string; msg: string } | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!open) return;
    setName(app?.name ?? "");
    setUris((app?.redirect_uri ?? []).join("\n"));
    setScopes(app?.scope ?? ["openid", "profile", "email"]);
    setEnabled(app?.enabled ?? true);
    setError(null);
  }, [open, app]);

  async function save() {
    const body = { name, redirect_uri: uris.split("\n").map((u) => u.trim()).filter(Boolean), scope: scopes, enabled };
    const parsed = openidClientSchema.safeParse(body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      setError({ field: String(issue.path[0] ?? "name"), msg: fromKey(issue.message) ?? issue.message });
      return;
    }
    setBusy(true);
    try {
      if (app) await api.put(appPath(app.client_id), parsed.data);
      else await api.post("/oauth", parsed.data);
      toast.success(t(app ? "saved" : "added", { name: parsed.data.name }));
      await client.invalidateQueries({ queryKey: ["oauth"] });
      onOpenChange(false);
    } catch (err) {
      toast.error(t("saveFailed"), { subMessage: serverError(err) });
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog open={open} onOpenChange={onOpenChange}>
      <DialogContent title={app ? t("dialog.editTitle") : t("dialog.addTitle")} data-testid="openid-app-dialog">
        <div className="grid gap-4">
          <Field label={t("dialog.name")} error={error?.field === "name" ? error.msg : undefined}>
            <Input value={name} onChange={(e) => setName(e.target.value)} data-testid="openid-app-name" />
          </Field>
          <Field label={t("dialog.redirectUris")} hint={t("dialog.redirectUrisHint")} error={error?.field === "redirect_uri" ? error.msg : undefined}>
            <Textarea rows={3} value={uris} onChange={(e) => setUris(e.target.value)} data-testid="openid-app-redirects" />
          </Field>
          <fieldset className="grid gap-2">
            <legend className="mb-1 text-sm font-medium">{t("dialog.scopes")}</legend>
            {OIDC_SCOPES.map((s) => (
              <label key={s} className="flex items-center gap-2 text-sm">
                <Checkbox
                  checked={scopes.includes(s)}
                  onCheckedChange={(c) => setScopes((cur) => (c ? [...cur, s] : cur.filter((x) => x !== s)))}
                  data-testid={`openid-app-scope-${s}`}
                />
                <span className="font-mono text-xs">{s}</span>
              </label>
            ))}
            {error?.field === "scope" && <p className="text-sm text-danger">{error.msg}</p>}
          </fieldset>
          <label className="flex items-center gap-2 text-sm">
            <Switch checked={enabled} onCheckedChange={setEnabled} data-testid="openid-app-enabled" />
            {t("dialog.enabled")}
          </label>
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
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="secondary">{t("dialog.cancel")}</Button>
          </DialogClose>
          <Button onClick={save} disabled={busy} data-testid="openid-app-save">
            {t("dialog.save")}
          </Button>
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
  const [deleting, setDeleting] = useState<OpenidClient | null>(null);
  const [regenerating, setRegenerating] = useState<OpenidClient | null>(null);

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

  const rows = apps.data ?? [];
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
      {apps.isError ? (
        <InlineError message={t("loadFailed")} detail={apps.error.message} onRetry={() => apps.refetch()} retrying={apps.isFetching} />
      ) : (
        <TableContainer data-testid="openid-apps-table">
          <Table>
            <TableHeader>
              <tr>
                <TableHead>{t("columns.name")}</TableHead>
                <TableHead className="hidden md:table-cell">{t("clientId")}</TableHead>
                <TableHead>{t("columns.state")}</TableHead>
                <TableHead className="w-12">
                  <span className="sr-only">{t("columns.actions")}</span>
                </TableHead>
              </tr>
            </TableHeader>
            <TableBody>
              {apps.isPending ? (
                <TableSkeletonRows rows={3} columns={[{ width: "w-32" }, { width: "w-40", className: "hidden md:table-cell" }, { width: "w-16" }, { width: "w-6" }]} />
              ) : rows.length === 0 ? (
                <TableMessageRow colSpan={4}>
                  <EmptyState icon={Boxes} title={t("empty")} description={t("emptyHint")} />
                </TableMessageRow>
              ) : (
                rows.map((a) => (
                  <TableRow key={a.id} data-testid="openid-app-row" data-app={a.name}>
                    <TableCell>
                      <button type="button" className="font-medium hover:underline" onClick={() => setEditing(a)}>
                        {a.name}
                      </button>
                      <p className="text-xs text-fg-muted">{a.redirect_uri.join(", ")}</p>
                    </TableCell>
                    <TableCell className="hidden font-mono text-xs md:table-cell">{a.client_id}</TableCell>
                    <TableCell>
                      <Badge tone={a.enabled ? "success" : undefined}>{a.enabled ? t("enabled") : t("disabled")}</Badge>
                    </TableCell>
                    <TableCell className="w-12 pr-2 text-right">
                      <DropdownMenu modal={false}>
                        <DropdownMenuTrigger asChild>
                          <Button variant="ghost" size="icon" aria-label={t("actions.open", { name: a.name })} data-testid={`openid-app-actions-${a.name}`}>
                            <Ellipsis aria-hidden />
                          </Button>
                        </DropdownMenuTrigger>
                        <DropdownMenuContent align="end">
                          <DropdownMenuItem onSelect={() => setEditing(a)}>
                            <Pencil aria-hidden />
                            {t("actions.edit")}
                          </DropdownMenuItem>
                          <DropdownMenuItem
                            data-testid="openid-app-toggle"
                            onSelect={() =>
                              void act(() => api.post(appPath(a.client_id), { enabled: !a.enabled }), a.enabled ? t("disabledToast", { name: a.name }) : t("enabledToast", { name: a.name })).catch(() => {})
                            }
                          >
                            <Power aria-hidden />
                            {a.enabled ? t("actions.disable") : t("actions.enable")}
                          </DropdownMenuItem>
                          <DropdownMenuItem onSelect={() => setRegenerating(a)}>
                            <RefreshCw aria-hidden />
                            {t("actions.regenerate")}
                          </DropdownMenuItem>
                          <DropdownMenuSeparator />
                          <DropdownMenuItem danger onSelect={() => setDeleting(a)} data-testid="openid-app-delete">
                            <Trash2 aria-hidden />
                            {t("actions.delete")}
                          </DropdownMenuItem>
                        </DropdownMenuContent>
                      </DropdownMenu>
                    </TableCell>
                  </TableRow>
                ))
              )}
            </TableBody>
          </Table>
        </TableContainer>
      )}
      <AppDialog open={creating} onOpenChange={setCreating} />
      <AppDialog app={editing ?? undefined} open={editing !== null} onOpenChange={(o) => !o && setEditing(null)} />
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(o) => !o && setDeleting(null)}
        title={t("deleteTitle", { name: deleting?.name ?? "" })}
        description={t("deleteDescription")}
        confirmLabel={t("actions.delete")}
        danger
        onConfirm={() => deleting && act(() => api.delete(appPath(deleting.client_id)), t("deleted", { name: deleting.name }))}
      />
      <ConfirmDialog
        open={regenerating !== null}
        onOpenChange={(o) => !o && setRegenerating(null)}
        title={t("regenerateTitle", { name: regenerating?.name ?? "" })}
        description={t("regenerateDescription")}
        confirmLabel={t("actions.regenerate")}
        danger
        onConfirm={() => regenerating && act(() => api.post(`${appPath(regenerating.client_id)}/secret`), t("regenerated", { name: regenerating.name }))}
      />
    </>
  );
}
