"use client";

import { useEffect, useState } from "react";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { queryOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import type { z } from "zod";
import { KeyRound, Pencil, Plus, TriangleAlert, Trash2 } from "lucide-react";
import { api } from "@/lib/api/client";
import { apiTokenCreateSchema, type ApiTokenInfo } from "@/lib/apitokens/schema";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { CopyField, type CopyFieldLabels } from "@/components/ui/copy-field";
import { DataTable } from "@/components/ui/data-table";
import { Dialog, DialogContent, DialogFooter, DialogFormFooter } from "@/components/ui/dialog";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { RelativeTime } from "@/components/ui/relative-time";
import { runRowAction } from "@/components/ui/row-action";
import { useSubmit } from "@/components/ui/use-submit";
import { useServerError } from "@/components/users/server-errors";
import { RenameDialog } from "./key-dialogs";

const tokensPath = (username: string) => `/user/${encodeURIComponent(username)}/api_token`;
const tokensQuery = (username: string) =>
  queryOptions({ queryKey: ["api-tokens", username], queryFn: ({ signal }) => api.get<ApiTokenInfo[]>(tokensPath(username), { signal }) });

export function useCopyLabels(): CopyFieldLabels {
  const t = useTranslations("profile.keys.copy");
  return { copy: t("copy"), copied: t("copied"), insecure: t("insecure"), failed: t("failed") };
}

type FormIn = z.input<typeof apiTokenCreateSchema>;
type FormOut = z.output<typeof apiTokenCreateSchema>;

/** Name the token, then show it once with a copy button. */
function AddTokenDialog({ username, open, onOpenChange }: { username: string; open: boolean; onOpenChange: (o: boolean) => void }) {
  const t = useTranslations("profile.apiTokens");
  const labels = useCopyLabels();
  const client = useQueryClient();
  const serverError = useServerError();
  const [token, setToken] = useState<string | null>(null);
  const form = useForm<FormIn, unknown, FormOut>({ resolver: zodResolver(apiTokenCreateSchema), mode: "onTouched", defaultValues: { name: "" } });

  useEffect(() => {
    if (open) {
      form.reset({ name: "" });
      setToken(null);
    }
  }, [open, form]);

  const submit = useSubmit(form, {
    mutationFn: (v) => api.post<{ token: string }>(tokensPath(username), v),
    success: (_r, v) => t("added", { name: v.name }),
    onSuccess: async (r) => {
      setToken(r.token);
      await client.invalidateQueries({ queryKey: ["api-tokens", username] });
    },
    errorText: serverError,
    failure: t("addFailed"),
    fields: ["name"],
  });

  return (
    <Dialog open={open} onOpenChange={(next) => !submit.pending && onOpenChange(next)}>
      <DialogContent
        data-testid="api-token-dialog"
        title={token ? t("shownOnceTitle") : t("addTitle")}
        description={token ? t("shownOnceDescription") : t("addDescription")}
        className="max-w-lg"
      >
        {token ? (
          <div className="flex flex-col gap-4">
            <p role="status" className="flex items-start gap-2 rounded-md border border-warning/30 bg-warning-subtle px-3 py-2 text-sm">
              <TriangleAlert className="mt-0.5 size-4 shrink-0 text-warning" aria-hidden />
              {t("shownOnceWarning")}
            </p>
            <Field label={t("token")}>
              <CopyField value={token} labels={labels} data-testid="api-token-value" />
            </Field>
            <p className="text-xs text-fg-muted">
              {t("usage")} <code className="font-mono">Authorization: Bearer {token.slice(0, 6)}…</code>
            </p>
            <DialogFooter className="mt-2">
              <Button onClick={() => onOpenChange(false)} data-testid="api-token-done">
                {t("done")}
              </Button>
            </DialogFooter>
          </div>
        ) : (
          <form noValidate onSubmit={submit.onSubmit} className="flex flex-col gap-4">
            <Field label={t("name")} hint={t("nameHint")} error={submit.errorOf("name")}>
              <Input data-testid="api-token-name" autoComplete="off" maxLength={64} autoFocus {...form.register("name")} />
            </Field>
            <DialogFormFooter submitLabel={t("create")} pending={submit.pending} submitTestId="api-token-submit" />
          </form>
        )}
      </DialogContent>
    </Dialog>
  );
}

/** An admin's API tokens (profile): list, add (shown once), rename, delete. */
export function ApiTokensSection({ username }: { username: string }) {
  const t = useTranslations("profile.apiTokens");
  const client = useQueryClient();
  const serverError = useServerError();
  const tokens = useQuery(tokensQuery(username));
  const [adding, setAdding] = useState(false);
  const [renaming, setRenaming] = useState<ApiTokenInfo | null>(null);
  const refresh = () => client.invalidateQueries({ queryKey: ["api-tokens", username] });

  const remove = (token: ApiTokenInfo) =>
    runRowAction({
      call: () => api.delete(`${tokensPath(username)}/${token.id}`),
      success: t("deleted", { name: token.name }),
      failure: t("deleteFailed"),
      errorText: serverError,
      settle: refresh,
    });


  return (
    <Card data-testid="api-tokens">
      <CardHeader
        title={t("title")}
        description={t("description")}
        action={
          <Button variant="secondary" size="sm" onClick={() => setAdding(true)} data-testid="api-token-add">
            <Plus aria-hidden />
            {t("add")}
          </Button>
        }
      />
      <CardBody>
        <DataTable<ApiTokenInfo>
          testId="api-tokens-table"
          rows={tokens.data}
          rowKey={(r) => r.id}
          skeletonRows={2}
          error={tokens.isError ? { message: t("loadFailed"), detail: serverError(tokens.error), onRetry: () => void tokens.refetch(), retrying: tokens.isFetching } : null}
          empty={{ icon: KeyRound, title: t("empty"), description: t("emptyHint") }}
          rowProps={(r) => ({ "data-testid": "api-token-row", "data-name": r.name })}
          columns={[
            { header: t("name"), skeleton: "w-32", cell: (r) => <span className="font-medium">{r.name}</span> },
            { header: t("created"), skeleton: "w-24", cell: (r) => <RelativeTime value={r.created_at} className="text-fg-muted" /> },
          ]}
          actions={{
            columnLabel: t("actions"),
            label: (r) => t("actionsFor", { name: r.name }),
            testId: "api-token-actions",
            items: (r) => [
              { label: t("rename"), icon: Pencil, onSelect: () => setRenaming(r), testId: "api-token-rename" },
              {
                label: t("delete"),
                icon: Trash2,
                danger: true,
                separated: true,
                testId: "api-token-delete",
                confirm: { title: t("deleteTitle", { name: r.name }), description: t("deleteDescription"), confirmLabel: t("delete"), run: () => remove(r) },
              },
            ],
          }}
        />
      </CardBody>
      <AddTokenDialog username={username} open={adding} onOpenChange={setAdding} />
      <RenameDialog
        item={renaming}
        onOpenChange={(o) => !o && setRenaming(null)}
        rename={async (id, name) => {
          await api.post(`${tokensPath(username)}/${id}/rename`, { name });
          await refresh();
        }}
        title={t("renameTitle")}
        saved={(name) => t("renamed", { name })}
        testId="api-token-rename-dialog"
      />
    </Card>
  );
}
