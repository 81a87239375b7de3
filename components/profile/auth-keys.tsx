"use client";

import { useEffect, useState, type ReactNode } from "react";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { queryOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import type { z } from "zod";
import { Copy, FileKey, KeyRound, Pencil, Plus, Trash2 } from "lucide-react";
import { api, type Stripped } from "@/lib/api/client";
import { AUTH_KEY_TYPES, authKeyCreateSchema, type AuthKeyInfo, type AuthKeyType } from "@/lib/authkeys/schema";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { DataTable } from "@/components/ui/data-table";
import { Dialog, DialogClose, DialogContent, DialogFooter, DialogFormFooter } from "@/components/ui/dialog";
import { FormAlert } from "@/components/ui/form-alert";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { Textarea } from "@/components/ui/textarea";
import { runRowAction } from "@/components/ui/row-action";
import { toast } from "@/components/ui/toaster";
import { useSubmit } from "@/components/ui/use-submit";
import { useServerError } from "@/components/users/server-errors";
import { RenameDialog } from "./key-dialogs";
import { useProvisionJob, WorkerPicker, workersQuery } from "@/components/provisioning/shared";

type AuthKey = Stripped<AuthKeyInfo>;

const keysPath = (username: string) => `/user/${encodeURIComponent(username)}/auth_key`;
const keysQuery = (username: string) =>
  queryOptions({ queryKey: ["auth-keys", username], queryFn: ({ signal }) => api.get<AuthKeyInfo[]>(keysPath(username), { signal }) });

/** A short, recognisable form of a key for the list: SSH type and the end of its data, or the GPG block's start. */
export function keySummary(k: Pick<AuthKeyInfo, "key_type" | "key">): string {
  if (k.key_type === "ssh") {
    const [type, data = "", ...comment] = k.key.split(" ");
    return `${type} …${data.slice(-12)}${comment.length ? ` ${comment.join(" ")}` : ""}`;
  }
  const body = k.key.split("\n").filter((l) => l && !l.startsWith("-----") && !l.includes(": "));
  return `PGP …${(body[0] ?? "").slice(-16)}`;
}

type FormIn = z.input<typeof authKeyCreateSchema>;
type FormOut = z.output<typeof authKeyCreateSchema>;

/** What the add dialog adds: a pasted SSH or GPG key, or a YubiKey provisioned by a station (admins). */
type AddMode = AuthKeyType | "yubikey";

function AddKeyDialog({ username, admin, open, onOpenChange }: { username: string; admin: boolean; open: boolean; onOpenChange: (o: boolean) => void }) {
  const t = useTranslations("profile.authKeys");
  const client = useQueryClient();
  const serverError = useServerError();
  const [mode, setMode] = useState<AddMode>("ssh");
  const [busy, setBusy] = useState(false);
  const form = useForm<FormIn, unknown, FormOut>({
    resolver: zodResolver(authKeyCreateSchema),
    mode: "onTouched",
    defaultValues: { name: "", key_type: "ssh", key: "" },
  });
  const type = form.watch("key_type");

  useEffect(() => {
    if (open) {
      form.reset({ name: "", key_type: "ssh", key: "" });
      setMode("ssh");
    }
  }, [open, form]);

  const submit = useSubmit(form, {
    mutationFn: (v) => api.post(keysPath(username), v),
    success: (_r, v) => t("added", { name: v.name }),
    onSuccess: async () => {
      onOpenChange(false);
      await client.invalidateQueries({ queryKey: ["auth-keys", username] });
    },
    errorText: serverError,
    failure: t("addFailed"),
    fields: ["name", "key_type", "key"],
  });

  const modes: AddMode[] = admin ? [...AUTH_KEY_TYPES, "yubikey"] : [...AUTH_KEY_TYPES];
  const typeSelect = (
    <Select
      value={mode}
      onValueChange={(v) => {
        setMode(v as AddMode);
        if (v !== "yubikey") form.setValue("key_type", v as AuthKeyType);
      }}
      disabled={busy}
    >
      <SelectTrigger data-testid="auth-key-type" aria-label={t("type")}>
        <SelectValue />
      </SelectTrigger>
      <SelectContent>
        {modes.map((k) => (
          <SelectItem key={k} value={k} data-testid={`auth-key-type-${k}`}>
            {t(`types.${k}`)}
          </SelectItem>
        ))}
      </SelectContent>
    </Select>
  );

  return (
    <Dialog open={open} onOpenChange={(next) => !submit.pending && !busy && onOpenChange(next)}>
      <DialogContent
        data-testid="auth-key-dialog"
        title={t("addTitle")}
        description={mode === "yubikey" ? t("yubikey.description") : t("addDescription")}
        className="max-w-xl"
      >
        {mode === "yubikey" ? (
          <YubiKeyProvision username={username} typeSelect={typeSelect} onBusy={setBusy} onDone={() => onOpenChange(false)} />
        ) : (
          <form noValidate onSubmit={submit.onSubmit} className="flex flex-col gap-4">
            <div className="grid gap-4 sm:grid-cols-[1fr_160px]">
              <Field label={t("name")} error={submit.errorOf("name")}>
                <Input data-testid="auth-key-name" autoComplete="off" maxLength={64} autoFocus {...form.register("name")} />
              </Field>
              <Field label={t("type")} error={submit.errorOf("key_type")}>
                {typeSelect}
              </Field>
            </div>
            <Field label={t("key")} hint={type === "gpg" ? t("keyHintGpg") : t("keyHintSsh")} error={submit.errorOf("key")}>
              <Textarea
                data-testid="auth-key-key"
                rows={type === "gpg" ? 10 : 4}
                spellCheck={false}
                autoComplete="off"
                className="font-mono text-xs"
                placeholder={type === "gpg" ? "-----BEGIN PGP PUBLIC KEY BLOCK-----" : "ssh-ed25519 AAAA… user@host"}
                {...form.register("key")}
              />
            </Field>
            <DialogFormFooter submitLabel={t("create")} pending={submit.pending} submitTestId="auth-key-submit" />
          </form>
        )}
      </DialogContent>
    </Dialog>
  );
}

/**
 * The YubiKey part of the add dialog (admins; provisioning is an enterprise feature): choose a
 * station, start a job for this user (POST /worker/job), follow it (GET /worker/{job}) until the
 * station reports the keys; they then appear in the list with the YubiKey's serial.
 */
function YubiKeyProvision({ username, typeSelect, onBusy, onDone }: { username: string; typeSelect: ReactNode; onBusy: (b: boolean) => void; onDone: () => void }) {
  const t = useTranslations("profile.authKeys.yubikey");
  const tk = useTranslations("profile.authKeys");
  const tc = useTranslations("common");
  const client = useQueryClient();
  const serverError = useServerError();
  const workers = useQuery(workersQuery);
  const job = useProvisionJob();
  const [worker, setWorker] = useState("");
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const s = job.state;
  const running = starting || (job.job !== null && (!s || s.state === "pending"));

  useEffect(() => onBusy(running), [running, onBusy]);
  useEffect(() => {
    if (s?.state === "done") {
      toast.success(t("done", { serial: s.serial }));
      void client.invalidateQueries({ queryKey: ["auth-keys", username] });
      onDone();
    } else if (s?.state === "failed") {
      setError(t("failed", { message: s.message }));
      job.reset();
    }
    // Only a change of the job's state matters here.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [s?.state]);

  async function start() {
    if (!worker) {
      setError(t("chooseWorker"));
      return;
    }
    setError(null);
    setStarting(true);
    try {
      const r = await api.post<{ id: number }>("/worker/job", { worker, username });
      job.start(r.id);
    } catch (err) {
      setError(serverError(err));
    } finally {
      setStarting(false);
    }
  }

  const none = workers.data?.length === 0;
  return (
    <div className="flex flex-col gap-4" data-testid="auth-key-yubikey">
      <div className="grid gap-4 sm:grid-cols-[1fr_160px]">
        <Field label={t("worker")} hint={none ? t("noWorkers") : t("workerHint")}>
          <WorkerPicker value={worker} onChange={setWorker} workers={workers.data ?? []} loading={workers.isLoading} data-testid="auth-key-worker" />
        </Field>
        <Field label={tk("type")}>{typeSelect}</Field>
      </div>
      {workers.isError && <FormAlert testId="auth-key-workers-error">{serverError(workers.error)}</FormAlert>}
      {error && <FormAlert testId="auth-key-yubikey-error">{error}</FormAlert>}
      {running && job.job !== null && (
        <FormAlert tone="info" testId="auth-key-yubikey-progress">
          {t("inProgress")}
        </FormAlert>
      )}
      <DialogFooter className="mt-2">
        <DialogClose asChild>
          <Button variant="secondary" disabled={running}>
            {tc("cancel")}
          </Button>
        </DialogClose>
        <Button type="button" loading={running} onClick={() => void start()} data-testid="auth-key-provision">
          <KeyRound aria-hidden />
          {t("provision")}
        </Button>
      </DialogFooter>
    </div>
  );
}

/** A user's SSH and GPG public keys (profile): list, add, copy, rename, delete. */
export function AuthKeysSection({ username, admin = false }: { username: string; admin?: boolean }) {
  const t = useTranslations("profile.authKeys");
  const client = useQueryClient();
  const serverError = useServerError();
  const keys = useQuery(keysQuery(username));
  const [adding, setAdding] = useState(false);
  const [renaming, setRenaming] = useState<AuthKey | null>(null);
  const refresh = () => client.invalidateQueries({ queryKey: ["auth-keys", username] });

  const remove = (k: AuthKey) =>
    runRowAction({
      call: () => api.delete(`${keysPath(username)}/${k.id}`),
      success: t("deleted", { name: k.name }),
      failure: t("deleteFailed"),
      errorText: serverError,
      settle: refresh,
    });


  async function copy(k: AuthKey) {
    try {
      if (!window.isSecureContext || !navigator.clipboard) throw new Error("insecure");
      await navigator.clipboard.writeText(k.key);
      toast.success(t("copied", { name: k.name }));
    } catch {
      toast.error(t("copyFailed"));
    }
  }

  return (
    <Card data-testid="auth-keys">
      <CardHeader
        title={t("title")}
        description={t("description")}
        action={
          <Button variant="secondary" size="sm" onClick={() => setAdding(true)} data-testid="auth-key-add">
            <Plus aria-hidden />
            {t("add")}
          </Button>
        }
      />
      <CardBody>
        <DataTable<AuthKey>
          testId="auth-keys-table"
          rows={keys.data}
          rowKey={(r) => r.id}
          skeletonRows={2}
          error={keys.isError ? { message: t("loadFailed"), detail: serverError(keys.error), onRetry: () => void keys.refetch(), retrying: keys.isFetching } : null}
          empty={{ icon: FileKey, title: t("empty"), description: t("emptyHint") }}
          rowProps={(r) => ({ "data-testid": "auth-key-row", "data-name": r.name })}
          columns={[
            {
              header: t("name"),
              skeleton: "w-28",
              cell: (r) => (
                <>
                  <span className="font-medium">{r.name}</span>
                  {r.yubikey_serial && (
                    <span className="block text-xs text-fg-muted" data-testid="auth-key-yubikey-serial">
                      {t("yubikey.onKey", { name: r.yubikey_name ?? "YubiKey", serial: r.yubikey_serial })}
                    </span>
                  )}
                </>
              ),
            },
            { header: t("type"), skeleton: "w-12", cell: (r) => <Badge>{t(`types.${r.key_type}`)}</Badge> },
            {
              header: t("key"),
              skeleton: "w-48",
              className: "hidden md:table-cell",
              cell: (r) => (
                <span className="block max-w-[22rem] truncate font-mono text-xs text-fg-muted" title={r.key_type === "ssh" ? r.key : undefined}>
                  {keySummary(r)}
                </span>
              ),
            },
          ]}
          actions={{
            columnLabel: t("actions"),
            label: (r) => t("actionsFor", { name: r.name }),
            testId: "auth-key-actions",
            items: (r) => [
              { label: t("copy"), icon: Copy, onSelect: () => void copy(r), testId: "auth-key-copy" },
              { label: t("rename"), icon: Pencil, onSelect: () => setRenaming(r), testId: "auth-key-rename" },
              {
                label: t("delete"),
                icon: Trash2,
                danger: true,
                separated: true,
                testId: "auth-key-delete",
                confirm: { title: t("deleteTitle", { name: r.name }), description: t("deleteDescription"), confirmLabel: t("delete"), run: () => remove(r) },
              },
            ],
          }}
        />
      </CardBody>
      <AddKeyDialog username={username} admin={admin} open={adding} onOpenChange={setAdding} />
      <RenameDialog
        item={renaming}
        onOpenChange={(o) => !o && setRenaming(null)}
        rename={async (id, name) => {
          await api.post(`${keysPath(username)}/${id}/rename`, { name });
          await refresh();
        }}
        title={t("renameTitle")}
        saved={(name) => t("renamed", { name })}
        testId="auth-key-rename-dialog"
      />
    </Card>
  );
}
