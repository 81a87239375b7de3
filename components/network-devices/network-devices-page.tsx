"use client";

import { useMemo, useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { Download, MonitorSmartphone, Pencil, Plus, Search, Terminal, Trash2 } from "lucide-react";
import { api } from "@/lib/api/client";
import { configFileName, deviceKeys, fetchNetworkDeviceConfig, useNetworkDevices, type NetworkDevice } from "@/components/devices/api";
import { useApiErrorText } from "@/components/devices/errors";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { DataTable, type DataColumn } from "@/components/ui/data-table";
import { downloadText } from "@/components/ui/download";
import { Pagination } from "@/components/ui/pagination";
import { usePagerLabels } from "@/components/users/labels";
import { filterNetworkDevices, NETWORK_DEVICES_PAGE_SIZE, pageOf } from "./filter";
import { PageHeader } from "@/components/ui/page-header";
import { RelativeTime } from "@/components/ui/relative-time";
import { toast } from "@/components/ui/toaster";
import { SearchInput } from "@/components/ui/search-input";
import { AddNetworkDeviceDialog } from "./add-network-device-dialog";
import { CliTokenDialog } from "./cli-command";
import { EditNetworkDeviceDialog } from "./edit-network-device-dialog";
import { DevicesBulkBar } from "./devices-bulk";
import { useBulkSelection } from "@/components/ui/bulk-selection";

/** Network Devices: standalone devices (servers, routers) with their location and addresses. */
export function NetworkDevicesPage() {
  const t = useTranslations("networkDevices.list");
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  const devices = useNetworkDevices();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<NetworkDevice | null>(null);
  const [cliFor, setCliFor] = useState<NetworkDevice | null>(null);
  const [text, setText] = useState("");
  const [page, setPage] = useState(1);
  const pagerLabels = usePagerLabels("networkDevices");
  const matching = useMemo(() => filterNetworkDevices(devices.data ?? [], text), [devices.data, text]);
  const shown = pageOf(matching, page);
  // Bulk selection: kept here, so it survives paging and searching; "all matching" goes to the
  // server as this list's filter (network devices, the same text search).
  const bulkFilter = useMemo(() => ({ type: "network" as const, search: text.trim() || undefined }), [text]);
  const selection = useBulkSelection(bulkFilter);
  const tb = useTranslations("bulk");

  async function remove(d: NetworkDevice) {
    try {
      await api.delete(`/device/network/${d.id}`);
      toast.success(t("deleted", { name: d.name }));
      await queryClient.invalidateQueries({ queryKey: deviceKeys.network });
    } catch (err) {
      toast.error(t("deleteFailed", { name: d.name }), { subMessage: errorText(err) });
      throw err;
    }
  }

  const download = useMutation({
    mutationFn: (d: NetworkDevice) => fetchNetworkDeviceConfig(d.id),
    onSuccess: (text, d) => downloadText(configFileName(d.location?.name ?? "location", d.name), text),
    onError: (err) => toast.error(t("configFailed"), { subMessage: errorText(err) }),
  });

  const add = (
    <Button onClick={() => setAdding(true)} data-testid="add-network-device">
      <Plus aria-hidden />
      {t("add")}
    </Button>
  );

  const columns: DataColumn<NetworkDevice>[] = [
    {
      header: t("name"),
      skeleton: "w-28",
      cellClassName: "max-w-60",
      cell: (d) => (
        <>
          <span className="flex min-w-0 items-center gap-2">
            <span className="truncate font-medium">{d.name}</span>
            {!d.configured && (
              <Badge tone="warning" title={t("notConfiguredHint")} data-testid="nd-not-configured">
                {t("notConfigured")}
              </Badge>
            )}
          </span>
          <span className="block truncate text-xs text-fg-muted sm:hidden">{d.location?.name}</span>
          <span className="block truncate font-mono text-xs text-fg-muted md:hidden">{d.assigned_ips.join(", ")}</span>
          {d.description && <span className="block truncate text-xs text-fg-muted xl:hidden">{d.description}</span>}
        </>
      ),
    },
    { header: t("location"), skeleton: "w-20", className: "hidden sm:table-cell", cell: (d) => d.location?.name ?? <span className="text-fg-subtle">—</span> },
    { header: t("ips"), skeleton: "w-24", className: "hidden md:table-cell", cellClassName: "font-mono text-xs", cell: (d) => d.assigned_ips.join(", ") },
    { header: t("addedBy"), skeleton: "w-16", className: "hidden lg:table-cell", cellClassName: "font-mono text-xs", cell: (d) => d.added_by ?? "—" },
    {
      header: t("addedDate"),
      skeleton: "w-20",
      className: "hidden lg:table-cell",
      cellClassName: "text-xs text-fg-muted",
      cell: (d) => <RelativeTime value={d.added_date} />,
    },
    {
      header: t("descriptionColumn"),
      skeleton: "w-32",
      className: "hidden xl:table-cell",
      cellClassName: "max-w-64 truncate text-xs text-fg-muted",
      cell: (d) => d.description,
    },
  ];

  return (
    <>
      <PageHeader title={t("title")} description={t("description")} action={add} />
      {!!devices.data?.length && (
        <SearchInput
          className="mb-4 sm:max-w-sm"
          data-testid="nd-search"
          aria-label={t("search")}
          placeholder={t("search")}
          value={text}
          onValueChange={(v) => {
            setText(v);
            setPage(1);
          }}
          clearLabel={t("clearSearch")}
        />
      )}
      <DevicesBulkBar selection={selection} total={devices.data ? matching.length : undefined} />
      <DataTable
        columns={columns}
        rows={devices.data ? shown.rows : undefined}
        rowKey={(d) => d.id}
        selection={selection.table(devices.data ? shown.rows : undefined, (d) => d.id, (d) => d.name, {
          row: (name) => tb("selectRow", { name }),
          page: tb("selectPage"),
        })}
        skeletonRows={4}
        error={
          devices.isError
            ? { message: t("loadFailed"), detail: errorText(devices.error), onRetry: () => void devices.refetch(), retrying: devices.isFetching }
            : null
        }
        empty={
          devices.data?.length
            ? { icon: Search, title: t("noMatchesTitle"), description: t("noMatchesDescription", { text: text.trim() }) }
            : { icon: MonitorSmartphone, title: t("emptyTitle"), description: t("emptyDescription"), action: add }
        }
        rowProps={(d) => ({ "data-testid": "nd-row", "data-device": d.name })}
        actions={{
          label: (d) => t("actions", { name: d.name }),
          columnLabel: t("actionsColumn"),
          testId: "nd-actions",
          busy: (d) => download.isPending && download.variables?.id === d.id,
          items: (d) => [
            { label: t("edit"), icon: Pencil, onSelect: () => setEditing(d) },
            // Without a key yet there is no configuration to download.
            d.configured
              ? { label: t("downloadConfig"), icon: Download, disabled: !d.location, testId: "nd-download", onSelect: () => download.mutate(d) }
              : { label: t("generateCliToken"), icon: Terminal, testId: "nd-cli-token", onSelect: () => setCliFor(d) },
            {
              label: t("delete"),
              icon: Trash2,
              danger: true,
              separated: true,
              confirm: {
                title: t("deleteTitle", { name: d.name }),
                description: t("deleteDescription", { location: d.location?.name ?? "" }),
                confirmLabel: t("deleteConfirm"),
                run: () => remove(d),
              },
            },
          ],
        }}
      />
      {matching.length > NETWORK_DEVICES_PAGE_SIZE && (
        <Pagination
          className="mt-3"
          page={shown.page}
          pageCount={shown.pageCount}
          total={matching.length}
          pageSize={NETWORK_DEVICES_PAGE_SIZE}
          onPageChange={setPage}
          labels={pagerLabels}
        />
      )}
      <AddNetworkDeviceDialog open={adding} onOpenChange={setAdding} />
      <EditNetworkDeviceDialog device={editing} onOpenChange={(o) => !o && setEditing(null)} />
      <CliTokenDialog device={cliFor} onOpenChange={(o) => !o && setCliFor(null)} />
    </>
  );
}
