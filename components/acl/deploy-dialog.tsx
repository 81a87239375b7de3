"use client";

import { useState } from "react";
import { useTranslations } from "next-intl";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { ArrowDownRight, ArrowUpRight, Equal, Rocket } from "lucide-react";
import { api } from "@/lib/api/client";
import { useServerError } from "@/components/users/server-errors";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { DataTable, type DataColumn } from "@/components/ui/data-table";
import { Dialog, DialogClose, DialogContent, DialogFooter } from "@/components/ui/dialog";
import { InlineError } from "@/components/ui/inline-error";
import { Skeleton } from "@/components/ui/skeleton";
import { toast } from "@/components/ui/toaster";
import type { ImpactAnswer } from "@/lib/acl/explain";
import { aclKeys, refreshAcl, type ImpactPair, type LocationImpact } from "./api";

interface DeployItem {
  id: number;
  name: string;
  state: string;
}

interface DeployDialogProps {
  kind: "rules" | "aliases";
  /** What to deploy; null while closed. */
  ids: number[] | null;
  names: DeployItem[];
  onOpenChange: (open: boolean) => void;
  onDeployed?: () => void;
}

interface PairRow extends ImpactPair {
  change: "gain" | "loss";
  key: string;
}

/** One location's preview: counts, then the first pairs of devices and destinations. */
function LocationImpactCard({ impact }: { impact: LocationImpact }) {
  const t = useTranslations("acl.deploy");
  const rows: PairRow[] = [
    ...impact.gains.map((p, i) => ({ ...p, change: "gain" as const, key: `g${i}` })),
    ...impact.losses.map((p, i) => ({ ...p, change: "loss" as const, key: `l${i}` })),
  ];
  const hidden = impact.gained + impact.lost - rows.length;
  const columns: DataColumn<PairRow>[] = [
    {
      header: t("change"),
      skeleton: "w-12",
      className: "w-10 sm:w-20",
      cell: (p) =>
        p.change === "gain" ? (
          <Badge tone="success">
            <ArrowUpRight aria-hidden />
            <span className="sr-only sm:not-sr-only">{t("gains")}</span>
          </Badge>
        ) : (
          <Badge tone="error">
            <ArrowDownRight aria-hidden />
            <span className="sr-only sm:not-sr-only">{t("loses")}</span>
          </Badge>
        ),
    },
    {
      header: t("device"),
      skeleton: "w-24",
      cellClassName: "max-w-0 w-full sm:w-1/2",
      cell: (p) => (
        <>
          <span className="block truncate" title={`${p.device_name} · ${p.username}`}>
            <span className="font-medium text-fg">{p.device_name}</span>
            <span className="text-fg-muted"> · {p.username}</span>
          </span>
          <span className="block truncate font-mono text-xs sm:hidden">
            {p.destination} <span className="text-fg-muted">{p.protocol}{p.ports ? ` ${p.ports}` : ""}</span>
          </span>
        </>
      ),
    },
    {
      header: t("destination"),
      skeleton: "w-24",
      className: "hidden sm:table-cell",
      cellClassName: "max-w-0 w-1/2",
      cell: (p) => {
        const text = `${p.destination} ${p.protocol}${p.ports ? ` ${p.ports}` : ""}`;
        return (
          <span className="block truncate font-mono text-xs" title={text}>
            {p.destination} <span className="text-fg-muted">{p.protocol}{p.ports ? ` ${p.ports}` : ""}</span>
          </span>
        );
      },
    },
  ];
  return (
    <div className="flex flex-col gap-2 rounded-md border border-border p-3" data-testid="impact-location" data-location={impact.location_name}>
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="font-medium text-fg">{impact.location_name}</p>
        <div className="flex flex-wrap items-center gap-2 text-xs">
          <Badge tone="success" data-testid="impact-gained" data-count={impact.gained}>
            <ArrowUpRight aria-hidden />
            {t("gainedCount", { count: impact.gained, devices: impact.devices_gaining })}
          </Badge>
          <Badge tone="error" data-testid="impact-lost" data-count={impact.lost}>
            <ArrowDownRight aria-hidden />
            {t("lostCount", { count: impact.lost, devices: impact.devices_losing })}
          </Badge>
        </div>
      </div>
      {rows.length > 0 && (
        <DataTable
          className="max-h-56"
          columns={columns}
          rows={rows}
          rowKey={(p) => p.key}
          empty={{ icon: Equal, title: t("noChange") }}
          rowProps={(p) => ({ "data-testid": "impact-pair", "data-change": p.change })}
        />
      )}
      {hidden > 0 && <p className="text-xs text-fg-muted">{t("morePairs", { count: hidden })}</p>}
    </div>
  );
}

/**
 * Deploy pending rule or alias changes: lists them, previews per location which devices gain and
 * lose access to which destinations (GET /acl/impact), then applies them.
 */
export function DeployDialog({ kind, ids, names, onOpenChange, onDeployed }: DeployDialogProps) {
  const t = useTranslations("acl.deploy");
  const client = useQueryClient();
  const serverError = useServerError();
  const [pending, setPending] = useState(false);
  const open = ids !== null && ids.length > 0;
  const list = ids ?? [];
  const ruleIds = kind === "rules" ? list : [];
  const aliasIds = kind === "aliases" ? list : [];

  const impact = useQuery({
    queryKey: aclKeys.impact(ruleIds, aliasIds),
    queryFn: ({ signal }) =>
      api.get<ImpactAnswer>("/acl/impact", { signal, query: { rules: ruleIds.join(",") || undefined, aliases: aliasIds.join(",") || undefined } }),
    enabled: open,
    staleTime: 0,
  });
  const changed = (impact.data?.locations ?? []).filter((l) => l.gained + l.lost > 0);

  async function deploy() {
    setPending(true);
    try {
      if (kind === "rules") await api.put("/acl/rule/apply", { rules: list });
      else await api.put("/acl/alias/apply", { aliases: list });
      toast.success(t(kind === "rules" ? "deployedRules" : "deployedAliases", { count: list.length }));
      onDeployed?.();
      onOpenChange(false);
      await refreshAcl(client);
    } catch (err) {
      toast.error(t("failed"), { subMessage: serverError(err) });
    } finally {
      setPending(false);
    }
  }

  return (
    <Dialog open={open} onOpenChange={(o) => !pending && onOpenChange(o)}>
      <DialogContent
        data-testid="deploy-dialog"
        title={t(kind === "rules" ? "titleRules" : "titleAliases", { count: list.length })}
        description={t("description")}
        className="max-w-2xl"
      >
        <div className="flex flex-col gap-4">
          <ul className="flex flex-wrap gap-1.5" aria-label={t("changes")}>
            {names.map((n) => (
              <li key={n.id}>
                <Badge tone={n.state === "deleted" ? "error" : n.state === "new" ? "info" : "warning"}>
                  {n.name} · {t(`states.${n.state}` as never)}
                </Badge>
              </li>
            ))}
          </ul>
          <div className="flex flex-col gap-2" data-testid="deploy-impact">
            <h3 className="text-sm font-semibold text-fg">{t("impactTitle")}</h3>
            {impact.isPending ? (
              <div className="flex flex-col gap-2" aria-busy>
                <Skeleton className="h-16 w-full" />
                <Skeleton className="h-16 w-full" />
              </div>
            ) : impact.isError ? (
              <InlineError message={t("impactFailed")} detail={serverError(impact.error)} onRetry={() => void impact.refetch()} retrying={impact.isFetching} />
            ) : changed.length === 0 ? (
              <p className="rounded-md border border-dashed border-border p-3 text-sm text-fg-muted" data-testid="impact-none">
                {t("noImpact")}
              </p>
            ) : (
              <div className="flex max-h-[50dvh] flex-col gap-3 overflow-auto">
                {changed.map((l) => (
                  <LocationImpactCard key={l.location_id} impact={l} />
                ))}
              </div>
            )}
          </div>
        </div>
        <DialogFooter>
          <DialogClose asChild>
            <Button variant="secondary" disabled={pending}>
              {t("cancel")}
            </Button>
          </DialogClose>
          <Button data-testid="deploy-confirm" loading={pending} onClick={() => void deploy()}>
            <Rocket aria-hidden />
            {t("confirm", { count: list.length })}
          </Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
