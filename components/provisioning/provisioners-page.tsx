"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { queryOptions, useQuery, useQueryClient } from "@tanstack/react-query";
import { KeyRound, Trash2 } from "lucide-react";
import { api, apiRequest, ApiBadRequestError } from "@/lib/api/client";
import { workerJobSchema, type WorkerJobInput } from "@/lib/provisioning/schema";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { CodeBlock, type CodeBlockLabels } from "@/components/ui/code-block";
import { DataTable, type DataColumn } from "@/components/ui/data-table";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { toast } from "@/components/ui/toaster";
import { useSubmit } from "@/components/ui/use-submit";
import { useServerError } from "@/components/users/server-errors";

interface Worker {
  id: string;
  ip: string;
  connected: boolean;
}

const workersQuery = queryOptions({
  queryKey: ["workers"],
  queryFn: ({ signal }) => api.get<Worker[]>("/worker", { signal }),
  refetchInterval: 5_000,
});
const tokenQuery = queryOptions({
  queryKey: ["worker-token"],
  queryFn: ({ signal }) => api.get<{ token: string; grpc_url: string }>("/worker/token", { signal }),
  staleTime: Infinity,
});

/** The provisioning station's docker command (the worker image reads the token, its name and the gRPC address). */
export const dockerCommand = (token: string, grpcUrl: string) =>
  `docker run --privileged ghcr.io/defguard/yubikey-provision:main -t ${token} --id <WORKER_NAME> --grpc ${grpcUrl}`;

type JobState = { state: "pending" } | { state: "done"; serial: string } | { state: "failed"; message: string };

/** Poll GET /worker/{job}: null while pending, {success, serial} when done, 404 {message} when failed. */
async function jobState(id: number): Promise<JobState> {
  try {
    const r = await apiRequest<{ success: boolean; serial: string } | null>("GET", `/worker/${id}`);
    return r.data ? { state: "done", serial: r.data.serial ?? "" } : { state: "pending" };
  } catch (err) {
    if (err instanceof ApiBadRequestError && err.status === 404) return { state: "failed", message: err.message };
    throw err;
  }
}

function ProvisionCard({ workers }: { workers: Worker[] }) {
  const t = useTranslations("provisioners.provision");
  const serverError = useServerError();
  const [job, setJob] = useState<number | null>(null);
  const form = useForm<WorkerJobInput>({ resolver: zodResolver(workerJobSchema), defaultValues: { worker: "", username: "" } });
  const status = useQuery({
    queryKey: ["worker-job", job],
    queryFn: () => jobState(job!),
    enabled: job !== null,
    refetchInterval: (q) => (q.state.data?.state === "pending" || !q.state.data ? 2_000 : false),
  });
  const save = useSubmit(form, {
    mutationFn: (v) => api.post<{ id: number }>("/worker/job", v),
    success: () => t("started"),
    onSuccess: (r) => setJob(r.id),
    errorText: serverError,
    failure: t("failed"),
  });
  const s = status.data;
  return (
    <Card>
      <CardHeader title={t("title")} description={t("description")} />
      <CardBody>
        <form noValidate onSubmit={save.onSubmit} className="flex flex-col gap-3 sm:flex-row sm:items-end" data-testid="provision-form">
          <Field label={t("worker")} error={save.errorOf("worker")} className="flex-1">
            <Input list="provision-workers" data-testid="provision-worker" {...form.register("worker")} />
          </Field>
          <datalist id="provision-workers">
            {workers.map((w) => (
              <option key={w.id} value={w.id} />
            ))}
          </datalist>
          <Field label={t("username")} error={save.errorOf("username")} className="flex-1">
            <Input data-testid="provision-username" {...form.register("username")} />
          </Field>
          <Button type="submit" loading={save.pending} data-testid="provision-start">
            <KeyRound aria-hidden />
            {t("start")}
          </Button>
        </form>
        {job !== null && (
          <p className="mt-3 text-sm" data-testid="provision-status" data-state={s?.state ?? "pending"}>
            {!s || s.state === "pending" ? (
              <Badge tone="info">{t("inProgress", { job })}</Badge>
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
      <ProvisionCard workers={workers.data ?? []} />
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
