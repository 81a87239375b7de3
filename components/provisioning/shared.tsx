"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api, apiRequest, ApiBadRequestError } from "@/lib/api/client";
import { Combobox } from "@/components/ui/combobox";

/** GET /worker item (defguard's WorkerDetail). */
export interface Worker {
  id: string;
  ip: string;
  connected: boolean;
}

export const workersQuery = queryOptions({
  queryKey: ["workers"],
  queryFn: ({ signal }) => api.get<Worker[]>("/worker", { signal }),
  refetchInterval: 5_000,
});

export type JobState = { state: "pending" } | { state: "done"; serial: string } | { state: "failed"; message: string };

/** Poll GET /worker/{job}: null while pending, {success, serial} when done, 404 {message} when failed. */
export async function jobState(id: number): Promise<JobState> {
  try {
    const r = await apiRequest<{ success: boolean; serial: string } | null>("GET", `/worker/${id}`);
    return r.data ? { state: "done", serial: r.data.serial ?? "" } : { state: "pending" };
  } catch (err) {
    if (err instanceof ApiBadRequestError && err.status === 404) return { state: "failed", message: err.message };
    throw err;
  }
}

/** The state of one provisioning job, polled every 2 s until it is settled (null: no job yet). */
export function useJobState(job: number | null) {
  return useQuery({
    queryKey: ["worker-job", job],
    queryFn: () => jobState(job!),
    enabled: job !== null,
    refetchInterval: (q) => (q.state.data?.state === "pending" || !q.state.data ? 2_000 : false),
  });
}

interface WorkerPickerProps {
  value: string;
  onChange: (worker: string) => void;
  workers: Worker[];
  loading?: boolean;
  invalid?: boolean;
  id?: string;
  "aria-label"?: string;
  "data-testid"?: string;
}

/**
 * One provisioning station (the shared Combobox): each listed with its availability; the
 * available ones first. A station that is not connected may still be chosen (its job waits).
 */
export function WorkerPicker({ value, onChange, workers, loading, invalid, id, "aria-label": ariaLabel, "data-testid": testId }: WorkerPickerProps) {
  const t = useTranslations("provisioners.picker");
  const tp = useTranslations("provisioners");
  const options = [...workers]
    .sort((a, b) => Number(b.connected) - Number(a.connected) || a.id.localeCompare(b.id))
    .map((w) => ({ value: w.id, label: w.id, description: `${w.connected ? tp("available") : tp("unavailable")} · ${w.ip}` }));
  return (
    <Combobox
      id={id}
      value={value || null}
      onChange={(v) => onChange(v ?? "")}
      options={options}
      loading={loading}
      placeholder={t("placeholder")}
      invalid={invalid}
      aria-label={ariaLabel}
      data-testid={testId}
      labels={{ search: t("search"), empty: workers.length ? t("empty") : t("none"), clear: t("clear") }}
    />
  );
}

/** The job being followed and its state: start() with the answer of POST /worker/job. */
export function useProvisionJob() {
  const [job, setJob] = useState<number | null>(null);
  const status = useJobState(job);
  return { job, start: setJob, reset: () => setJob(null), state: status.data ?? (job === null ? null : ({ state: "pending" } as JobState)) };
}
