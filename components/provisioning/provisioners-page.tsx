"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { Controller, useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { queryOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import { KeyRound, Trash2 } from "lucide-react";
import { api } from "@/lib/api/client";
import { workerJobSchema, type WorkerJobInput } from "@/lib/provisioning/schema";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { CodeBlock, type CodeBlockLabels } from "@/components/ui/code-block";
import { DataTable, type DataColumn } from "@/components/ui/data-table";
import { Field } from "@/components/ui/field";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { toast } from "@/components/ui/toaster";
import { useSubmit } from "@/components/ui/use-submit";
import { useServerError } from "@/components/users/server-errors";
import { UserPicker, type PickedUser } from "@/components/locations/wizard/user-picker";
import { useProvisionJob, WorkerPicker, workersQuery, type Worker } from "./shared";

/** The provisioning station's docker command (the worker image reads the token, its name and the gRPC address). */
export const dockerCommand = (token: string, grpcUrl: string) =>
  `docker run --privileged ghcr.io/defguard/yubikey-provision:main -t ${token} --id <WORKER_NAME> --grpc ${grpcUrl}`;

const tokenQuery = queryOptions({
  queryKey: ["worker-token"],
  queryFn: ({ signal }) => api.get<{ token: string; grpc_url: string }>("/worker/token", { signal }),
  staleTime: Infinity,
});

function ProvisionCard({ workers, loading }: { workers: Worker[]; loading: boolean }) {
  const t = useTranslations("provisioners.provision");
  const serverError = useServerError();
  const job = useProvisionJob();
  // The chosen user as the picker shows it; the form holds the username.
  const [picked, setPicked] = useState<PickedUser | null>(null);
  const form = useForm<WorkerJobInput>({ resolver: zodResolver(workerJobSchema), defaultValues: { worker: "", username: "" } });
  const save = useSubmit(form, {
    mutationFn: (v) => api.post<{ id: number }>("/worker/job", v),
    success: () => t("started"),
    onSuccess: (r) => job.start(r.id),
    errorText: serverError,
    failure: t("failed"),
  });
  const s = job.state;
  return (
    <Card>
      <CardHeader title={t("title")} description={t("description")} />
      <CardBody>
        <form noValidate onSubmit={save.onSubmit} className="flex flex-col gap-3 sm:flex-row sm:items-end" data-testid="provision-form">
          <Field label={t("worker")} error={save.errorOf("worker")} className="min-w-0 flex-1">
            <Controller
              control={form.control}
              name="worker"
              render={({ field }) => <WorkerPicker value={field.value} onChange={field.onChange} workers={workers} loading={loading} data-testid="provision-worker" />}
            />
          </Field>
          <Field label={t("username")} error={save.errorOf("username")} className="min-w-0 flex-1">
            <Controller
              control={form.control}
              name="username"
              render={({ field }) => (
                <UserPicker
                  value={picked}
                  onChange={(u) => {
                    setPicked(u);
                    field.onChange(u?.username ?? "");
                  }}
                  aria-label={t("username")}
                  data-testid="provision-username"
                />
              )}
            />
          </Field>
          <Button type="submit" loading={save.pending} data-testid="provision-start">
            <KeyRound aria-hidden />
            {t("start")}
          </Button>
        </form>
        {job.job !== null && (
          <p className="mt-3 text-sm" data-testid="provision-status" data-state={s?.state ?? "pending"}>
            {!s || s.state === "pending" ? (
              <Badge tone="info">{t("inProgress", { job: job.job })}</Badge>
            ) : s.state === "done" ? (
              <Badge tone="success">{t("done", { serial: s.serial })}</Badge>
            ) : (
              <Badge tone="error" className="h-auto whitespace-normal">{t("error", { message: s.message })}</Badge>
            )}
          </p>
        )}
      </CardBody>
    </Card>
  );
}

/** Provisioners (admin): YubiKey provisioning workers, the docker command to start one, and a provisioning form. */
export function ProvisionersPage() {
  const t = useTranslations("provisioners");
  const tc = useTranslations("gateways.copy");
  const client = useQueryClient();
  const serverError = useServerError();
  const workers = useQuery(workersQuery);
  const token = useQuery(tokenQuery);
  const labels: CodeBlockLabels = { copy: tc("copy"), copied: tc("copied"), download: tc("download"), insecure: tc("insecure"), failed: tc("failed") };

  async function remove(w: Worker) {
    try {
      await api.delete(`/worker/${encodeURIComponent(w.id)}`);
      toast.success(t("removed", { name: w.id }));
    } catch (err) {
      toast.error(t("removeFailed"), { subMessage: serverError(err) });
      throw err;
    } finally {
      await client.invalidateQueries({ queryKey: workersQuery.queryKey });
    }
  }

  const columns: DataColumn<Worker>[] = [
    { header: t("columns.name"), cell: (w) => <span className="font-medium text-fg">{w.id}</span>, skeleton: "w-32" },
    { header: t("columns.ip"), cell: (w) => <span className="font-mono text-xs">{w.ip}</span>, skeleton: "w-24", className: "hidden sm:table-cell" },
    {
      header: t("columns.status"),
      cell: (w) => <Badge tone={w.connected ? "success" : "neutral"}>{w.connected ? t("available") : t("unavailable")}</Badge>,
      skeleton: "w-20",
    },
  ];

  return (
    <div className="flex flex-col gap-4">
      <PageHeader title={t("title")} description={t("description")} />
      <DataTable
        testId="workers-table"
        columns={columns}
        rows={workers.data}
        rowKey={(w) => w.id}
        skeletonRows={2}
        error={workers.isError ? { message: t("loadFailed"), detail: workers.error.message, onRetry: () => void workers.refetch(), retrying: workers.isFetching } : null}
        empty={{ icon: KeyRound, title: t("empty"), description: t("emptyHint") }}
        rowProps={(w) => ({ "data-testid": "worker-row", "data-name": w.id })}
        actions={{
          label: (w) => t("actionsFor", { name: w.id }),
          columnLabel: t("columns.actions"),
          testId: "worker-actions",
          items: (w) => [
            {
              label: t("remove"),
              icon: Trash2,
              danger: true,
              testId: "worker-remove",
              confirm: { title: t("removeTitle"), description: t("removeDescription", { name: w.id }), confirmLabel: t("remove"), danger: true, run: () => remove(w) },
            },
          ],
        }}
      />
      <ProvisionCard workers={workers.data ?? []} loading={workers.isLoading} />
      <Card>
        <CardHeader title={t("docker.title")} description={t("docker.description")} />
        <CardBody>
          {token.data ? (
            <CodeBlock code={dockerCommand(token.data.token, token.data.grpc_url)} label={t("docker.title")} labels={labels} wrap data-testid="worker-docker-command" />
          ) : token.isError ? (
            <p className="text-sm text-error">{serverError(token.error)}</p>
          ) : (
            <Skeleton className="h-16 rounded-md" />
          )}
        </CardBody>
      </Card>
    </div>
  );
}
