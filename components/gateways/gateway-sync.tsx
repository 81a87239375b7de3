"use client";

import { useEffect, useState } from "react";
import { useForm } from "react-hook-form";
import { zodResolver } from "@hookform/resolvers/zod";
import { useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { CircleAlert, CircleCheck, CircleDashed, CircleHelp, RefreshCcw, TriangleAlert } from "lucide-react";
import { api } from "@/lib/api/client";
import { syncSettingsSchema, type SyncSettingsInput } from "@/lib/gateways/schema";
import { useApiErrorText } from "@/components/devices/errors";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { RelativeTime } from "@/components/ui/relative-time";
import { Switch } from "@/components/ui/switch";
import { toast } from "@/components/ui/toaster";
import { useSubmit } from "@/components/ui/use-submit";
import { gatewayKeys, syncKeys, useSyncOverview, type LocationGateway } from "./api";

const TONE = { in_sync: "success", applying: "warning", drifted: "error", unknown: "neutral" } as const;
const ICON = { in_sync: CircleCheck, applying: CircleDashed, drifted: CircleAlert, unknown: CircleHelp } as const;

/** "In sync", "Applying (revision n of m)", "Drifted since …" with what differs, or "Unknown". */
export function SyncStateCell({ g }: { g: LocationGateway }) {
  const t = useTranslations("gateways.sync");
  const state = g.sync_state;
  const Icon = ICON[state];
  const drift = g.drift;
  return (
    <span className="flex flex-col gap-1" data-testid="gateway-sync" data-state={state}>
      <span className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <Badge tone={TONE[state]} title={state === "unknown" ? t("unknownHint") : undefined}>
          <Icon aria-hidden />
          {state === "applying" ? t("applying", { applied: g.applied_revision ?? 0, expected: g.expected_revision }) : t(state)}
        </Badge>
        {state === "drifted" && g.drifted_since && (
          <span className="whitespace-nowrap text-xs text-fg-muted">{t.rich("driftedSince", { time: () => <RelativeTime value={g.drifted_since!} /> })}</span>
        )}
      </span>
      {state === "drifted" && drift && (
        <span className="text-xs text-fg-muted" data-testid="gateway-drift">
          {[
            drift.missing_count ? t("missing", { count: drift.missing_count }) : null,
            drift.unexpected_count ? t("unexpected", { count: drift.unexpected_count }) : null,
            drift.allowed_ips_count ? t("allowedIps", { count: drift.allowed_ips_count }) : null,
            drift.firewall ? t("firewall") : null,
          ]
            .filter(Boolean)
            .join(" · ")}
          {drift.missing.length > 0 && <span className="block truncate font-mono">{t("missingKeys", { keys: drift.missing.slice(0, 3).join(", ") })}</span>}
        </span>
      )}
    </span>
  );
}

/** "Reconcile now" and automatic drift repair for a location's gateways. */
export function SyncControls({ locationId }: { locationId: number }) {
  const t = useTranslations("gateways.sync");
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  const overview = useSyncOverview(locationId);
  const [busy, setBusy] = useState(false);
  const [saving, setSaving] = useState(false);

  async function reconcile() {
    setBusy(true);
    try {
      await api.post(`/network/${locationId}/gateways/reconcile`);
      toast.success(t("reconciled"));
      await queryClient.invalidateQueries({ queryKey: gatewayKeys.location(locationId) });
    } catch (err) {
      toast.error(t("reconcileFailed"), { subMessage: errorText(err) });
    } finally {
      setBusy(false);
    }
  }

  async function setAutoRepair(on: boolean) {
    if (!overview.data) return;
    setSaving(true);
    try {
      await api.put(`/network/${locationId}/gateways/sync`, { auto_repair: on, propagation_alert_ms: overview.data.propagation_alert_ms });
      await queryClient.invalidateQueries({ queryKey: syncKeys.location(locationId) });
    } catch (err) {
      toast.error(t("saveFailed"), { subMessage: errorText(err) });
    } finally {
      setSaving(false);
    }
  }

  return (
    <div className="flex flex-col gap-4 border-t border-border px-4 py-3 text-sm">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <label className="flex items-center gap-3">
          <Switch
            checked={overview.data?.auto_repair ?? true}
            disabled={!overview.data || saving}
            onCheckedChange={setAutoRepair}
            aria-label={t("autoRepair")}
            data-testid="gateway-auto-repair"
          />
          <span>
            <span className="block font-medium text-fg">{t("autoRepair")}</span>
            <span className="block text-xs text-fg-muted">{t("autoRepairHint")}</span>
          </span>
        </label>
        <Button variant="secondary" size="sm" onClick={reconcile} loading={busy} data-testid="gateway-reconcile">
          <RefreshCcw aria-hidden />
          {t("reconcile")}
        </Button>
      </div>
      {overview.data && <PropagationThresholdForm locationId={locationId} settings={overview.data} />}
    </div>
  );
}

/**
 * The propagation alert threshold (PUT /network/{id}/gateways/sync, checked with the API's own
 * schema): the overview warns when the hour's p95 commit-to-acknowledgement time is above it.
 */
function PropagationThresholdForm({ locationId, settings }: { locationId: number; settings: SyncSettingsInput }) {
  const t = useTranslations("gateways.sync");
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  const form = useForm<SyncSettingsInput>({
    resolver: zodResolver(syncSettingsSchema),
    defaultValues: { auto_repair: settings.auto_repair, propagation_alert_ms: settings.propagation_alert_ms },
  });
  // Follow the server's values (the switch, another admin) unless the user is typing.
  const { isDirty } = form.formState;
  useEffect(() => {
    if (!isDirty) form.reset({ auto_repair: settings.auto_repair, propagation_alert_ms: settings.propagation_alert_ms });
  }, [form, isDirty, settings.auto_repair, settings.propagation_alert_ms]);
  const save = useSubmit(form, {
    // The switch saves automatic repair on its own: send the value it last stored.
    mutationFn: (v) => api.put(`/network/${locationId}/gateways/sync`, { ...v, auto_repair: settings.auto_repair }),
    success: (_r, v) => t("thresholdSaved", { ms: v.propagation_alert_ms }),
    onSuccess: async (_r, v) => {
      form.reset({ auto_repair: settings.auto_repair, propagation_alert_ms: v.propagation_alert_ms });
      await queryClient.invalidateQueries({ queryKey: syncKeys.location(locationId) });
    },
    errorText,
    failure: t("saveFailed"),
    fields: ["propagation_alert_ms"],
    errorField: "propagation_alert_ms",
  });
  return (
    <form onSubmit={save.onSubmit} noValidate className="max-w-lg" data-testid="propagation-threshold-form">
      <Field label={t("threshold")} hint={t("thresholdHint")} error={save.errorOf("propagation_alert_ms")}>
        <div className="flex items-center gap-2">
          <Input type="number" inputMode="numeric" min={1} step={1} className="w-40" data-testid="propagation-threshold" {...form.register("propagation_alert_ms", { valueAsNumber: true })} />
          <Button type="submit" variant="secondary" size="sm" loading={save.pending} disabled={!isDirty} data-testid="propagation-threshold-save">
            {t("thresholdSave")}
          </Button>
        </div>
      </Field>
    </form>
  );
}

/** The location overview's line: p50/p95 commit-to-acknowledgement of the last hour, and the alert when p95 is above the threshold. */
export function PropagationLine({ locationId }: { locationId: number }) {
  const t = useTranslations("gateways.sync");
  const overview = useSyncOverview(locationId);
  const p = overview.data?.propagation;
  if (!p) return null;
  const p50 = p.p50_ms ?? null;
  const p95 = p.p95_ms ?? null;
  return (
    <div className="flex flex-col gap-1 text-sm" data-testid="propagation" data-alert={String(p.alert)}>
      <span className="text-fg-muted">
        {p.samples > 0 && p50 !== null && p95 !== null
          ? t("propagation", { p50, p95, count: p.samples })
          : t("propagationNone")}
      </span>
      {p.alert && p95 !== null && (
        <span className="flex items-center gap-1.5 font-medium text-error" role="alert" data-testid="propagation-alert">
          <TriangleAlert className="size-4" aria-hidden />
          {t("propagationAlert", { p95, threshold: p.threshold_ms })}
        </span>
      )}
    </div>
  );
}
