"use client";

import { useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { RefreshCw, Router, Trash2 } from "lucide-react";
import { api } from "@/lib/api/client";
import { useApiErrorText } from "@/components/devices/errors";
import { locationKeys } from "@/components/locations/api";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { DataTable, type DataColumn } from "@/components/ui/data-table";
import { RelativeTime } from "@/components/ui/relative-time";
import { toast } from "@/components/ui/toaster";
import { gatewayKeys, gatewayStatus, useLocationGateways, type LocationGateway as GatewayState } from "./api";
import { GatewayStatusBadge } from "./gateway-status-badge";
import { SyncControls, SyncStateCell } from "./gateway-sync";

function useColumns(onDelete: (g: GatewayState) => void): DataColumn<GatewayState>[] {
  const t = useTranslations("gateways.list");
  return [
    {
      header: t("hostname"),
      cellClassName: "max-w-64",
      skeleton: "w-32",
      cell: (g) => (
        <>
          <span className="block truncate font-mono text-xs font-medium text-fg">{g.hostname}</span>
          {g.name && g.name !== g.hostname && <span className="block truncate text-xs text-fg-muted">{g.name}</span>}
          <span className="block text-xs text-fg-muted sm:hidden">{g.version ? `v${g.version}` : t("unknownVersion")}</span>
        </>
      ),
    },
    {
      header: t("version"),
      className: "hidden sm:table-cell",
      cellClassName: "font-mono text-xs",
      skeleton: "w-16",
      cell: (g) => (g.version ? g.version : <span className="font-sans text-fg-subtle">{t("unknownVersion")}</span>),
    },
    {
      header: t("state"),
      skeleton: "w-36",
      cell: (g) => {
        const since = g.connected ? g.connected_at : g.disconnected_at;
        return (
          <span className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <Badge tone={g.connected ? "success" : "neutral"}>
              <span className={g.connected ? "size-1.5 rounded-full bg-success" : "size-1.5 rounded-full bg-fg-subtle"} aria-hidden />
              {g.connected ? t("connected") : t("disconnected")}
            </Badge>
            {since && (
              <span className="whitespace-nowrap text-xs text-fg-muted">
                {t.rich(g.connected ? "connectedSince" : "disconnectedSince", { time: () => <RelativeTime value={since} /> })}
              </span>
            )}
          </span>
        );
      },
    },
    {
      header: t("sync"),
      skeleton: "w-28",
      cell: (g) => <SyncStateCell g={g} />,
    },
    {
      // A single action: the delete button itself rather than a menu.
      header: <span className="sr-only">{t("actions")}</span>,
      className: "w-10",
      cellClassName: "pr-2 text-right",
      skeleton: "w-6",
      cell: (g) => (
        <Button variant="ghost" size="icon" onClick={() => onDelete(g)} aria-label={t("delete", { hostname: g.hostname })} data-testid="gateway-delete">
          <Trash2 aria-hidden />
        </Button>
      ),
    },
  ];
}

/** The gateways of one location with their combined status and the "Check status" button. */
export function GatewayList({ locationId }: { locationId: number }) {
  const t = useTranslations("gateways.list");
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  const gateways = useLocationGateways(locationId);
  // The dialog keeps naming its gateway while it closes.
  const [toDelete, setToDelete] = useState<GatewayState | null>(null);
  const [confirmOpen, setConfirmOpen] = useState(false);
  const [checking, setChecking] = useState(false);
  const columns = useColumns((g) => {
    setToDelete(g);
    setConfirmOpen(true);
  });
  const status = gateways.isPending ? null : gatewayStatus(gateways.data, gateways.isError);

  async function check() {
    setChecking(true);
    try {
      const r = await gateways.refetch();
      if (r.isError) toast.error(t("checkFailed"), { subMessage: errorText(r.error) });
    } finally {
      setChecking(false);
    }
  }

  async function remove(g: GatewayState) {
    try {
      await api.delete(`/network/${locationId}/gateways/${g.id}`);
      toast.success(t("deleted", { hostname: g.hostname }));
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: gatewayKeys.location(locationId) }),
        queryClient.invalidateQueries({ queryKey: gatewayKeys.byLocation }),
        queryClient.invalidateQueries({ queryKey: locationKeys.all }),
      ]);
    } catch (err) {
      toast.error(t("deleteFailed", { hostname: g.hostname }), { subMessage: errorText(err) });
      throw err;
    }
  }

  const list = gateways.data ?? [];
  const connected = list.filter((g) => g.connected).length;
  return (
    <Card data-testid="gateway-list">
      <CardHeader
        title={
          <span className="flex flex-wrap items-center gap-2">
            {t("title")}
            {status && <GatewayStatusBadge status={status} />}
          </span>
        }
        description={
          gateways.isError ? (
            t("checkFailedHint")
          ) : gateways.data ? (
            <>
              {list.length === 0 ? t("summaryNone") : t("summary", { connected, total: list.length })}
              {gateways.dataUpdatedAt > 0 && (
                <>
                  {" · "}
                  {t.rich("lastChecked", { time: () => <RelativeTime value={new Date(gateways.dataUpdatedAt)} /> })}
                </>
              )}
            </>
          ) : undefined
        }
        action={
          <Button variant="secondary" size="sm" onClick={check} loading={checking} data-testid="gateway-check-status">
            <RefreshCw aria-hidden />
            {t("check")}
          </Button>
        }
      />
      <DataTable
        className="overflow-x-auto rounded-none border-0 bg-transparent"
        columns={columns}
        rows={gateways.isPending ? undefined : list}
        rowKey={(g) => g.id}
        rowProps={(g) => ({ "data-testid": "gateway-row", "data-hostname": g.hostname, "data-connected": String(g.connected) })}
        skeletonRows={2}
        empty={{
          icon: Router,
          title: gateways.isError ? t("unknownTitle") : t("emptyTitle"),
          description: gateways.isError ? t("checkFailedHint") : t("emptyDescription"),
        }}
      />
      {list.length > 0 && <SyncControls locationId={locationId} />}
      <ConfirmDialog
        open={confirmOpen}
        onOpenChange={setConfirmOpen}
        title={t("confirmTitle", { hostname: toDelete?.hostname ?? "" })}
        description={toDelete?.connected ? t("confirmConnected") : t("confirmDescription")}
        confirmLabel={t("confirm")}
        danger
        onConfirm={() => toDelete && remove(toDelete)}
      />
    </Card>
  );
}
