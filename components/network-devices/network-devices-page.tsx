"use client";

import { useMemo, useState } from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { Download, MonitorSmartphone, MoreHorizontal, Pencil, Plus, Search, Terminal, Trash2 } from "lucide-react";
import { api } from "@/lib/api/client";
import { configFileName, deviceKeys, fetchNetworkDeviceConfig, useNetworkDevices, type NetworkDevice } from "@/components/devices/api";
import { useApiErrorText } from "@/components/devices/errors";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { downloadText } from "@/components/ui/download";
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuSeparator, DropdownMenuTrigger } from "@/components/ui/dropdown-menu";
import { EmptyState } from "@/components/ui/empty-state";
import { InlineError } from "@/components/ui/inline-error";
import { Pagination } from "@/components/ui/pagination";
import { usePagerLabels } from "@/components/users/labels";
import { filterNetworkDevices, NETWORK_DEVICES_PAGE_SIZE, pageOf } from "./filter";
import { PageHeader } from "@/components/ui/page-header";
import { RelativeTime } from "@/components/ui/relative-time";
import {
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableHeader,
  TableMessageRow,
  TableRow,
  TableSkeletonRows,
} from "@/components/ui/table";
import { toast } from "@/components/ui/toaster";
import { SearchInput } from "@/components/ui/search-input";
import { AddNetworkDeviceDialog } from "./add-network-device-dialog";
import { CliTokenDialog } from "./cli-command";
import { EditNetworkDeviceDialog } from "./edit-network-device-dialog";

const COLUMNS = [
  { width: "w-28" },
  { width: "w-20", className: "hidden sm:table-cell" },
  { width: "w-24", className: "hidden md:table-cell" },
  { width: "w-16", className: "hidden lg:table-cell" },
  { width: "w-20", className: "hidden lg:table-cell" },
  { width: "w-32", className: "hidden xl:table-cell" },
  { width: "w-6" },
];

function RowActions({
  device,
  onEdit,
  onCliToken,
  onDelete,
}: {
  device: NetworkDevice;
  onEdit: () => void;
  onCliToken: () => void;
  onDelete: () => void;
}) {
  const t = useTranslations("networkDevices.list");
  const errorText = useApiErrorText();
  const download = useMutation({
    mutationFn: () => fetchNetworkDeviceConfig(device.id),
    onSuccess: (text) => downloadText(configFileName(device.location?.name ?? "location", device.name), text),
    onError: (err) => toast.error(t("configFailed"), { subMessage: errorText(err) }),
  });
  return (
    <DropdownMenu>
      <DropdownMenuTrigger asChild>
        <Button variant="ghost" size="icon" aria-label={t("actions", { name: device.name })} loading={download.isPending} data-testid="nd-actions">
          <MoreHorizontal aria-hidden />
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end">
        <DropdownMenuItem onSelect={onEdit}>
          <Pencil aria-hidden />
          {t("edit")}
        </DropdownMenuItem>
        {device.configured ? (
          // Without a key yet there is no configuration to download.
          <DropdownMenuItem onSelect={() => download.mutate()} disabled={!device.location} data-testid="nd-download">
            <Download aria-hidden />
            {t("downloadConfig")}
          </DropdownMenuItem>
        ) : (
          <DropdownMenuItem onSelect={onCliToken} data-testid="nd-cli-token">
            <Terminal aria-hidden />
            {t("generateCliToken")}
          </DropdownMenuItem>
        )}
        <DropdownMenuSeparator />
        <DropdownMenuItem danger onSelect={onDelete}>
          <Trash2 aria-hidden />
          {t("delete")}
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}

/** Network Devices: standalone devices (servers, routers) with their location and addresses. */
export function NetworkDevicesPage() {
  const t = useTranslations("networkDevices.list");
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  const devices = useNetworkDevices();
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<NetworkDevice | null>(null);
  const [cliFor, setCliFor] = useState<NetworkDevice | null>(null);
  const [deleting, setDeleting] = useState<NetworkDevice | null>(null);
  const [text, setText] = useState("");
  const [page, setPage] = useState(1);
  const pagerLabels = usePagerLabels("networkDevices");
  const matching = useMemo(() => filterNetworkDevices(devices.data ?? [], text), [devices.data, text]);
  const shown = pageOf(matching, page);

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

  const add = (
    <Button onClick={() => setAdding(true)} data-testid="add-network-device">
      <Plus aria-hidden />
      {t("add")}
    </Button>
  );

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
      <TableContainer>
        <Table>
          <TableHeader>
            <tr>
              <TableHead>{t("name")}</TableHead>
              <TableHead className="hidden sm:table-cell">{t("location")}</TableHead>
              <TableHead className="hidden md:table-cell">{t("ips")}</TableHead>
              <TableHead className="hidden lg:table-cell">{t("addedBy")}</TableHead>
              <TableHead className="hidden lg:table-cell">{t("addedDate")}</TableHead>
              <TableHead className="hidden xl:table-cell">{t("descriptionColumn")}</TableHead>
              <TableHead className="w-10">
                <span className="sr-only">{t("actionsColumn")}</span>
              </TableHead>
            </tr>
          </TableHeader>
          <TableBody>
            {devices.isPending ? (
              <TableSkeletonRows rows={4} columns={COLUMNS} />
            ) : devices.isError ? (
              <TableMessageRow colSpan={7}>
                <InlineError
                  className="m-4"
                  message={t("loadFailed")}
                  detail={errorText(devices.error)}
                  onRetry={() => devices.refetch()}
                  retrying={devices.isFetching}
                />
              </TableMessageRow>
            ) : devices.data.length === 0 ? (
              <TableMessageRow colSpan={7}>
                <EmptyState icon={MonitorSmartphone} title={t("emptyTitle")} description={t("emptyDescription")} action={add} />
              </TableMessageRow>
            ) : matching.length === 0 ? (
              <TableMessageRow colSpan={7}>
                <EmptyState icon={Search} title={t("noMatchesTitle")} description={t("noMatchesDescription", { text: text.trim() })} />
              </TableMessageRow>
            ) : (
              shown.rows.map((d) => (
                <TableRow key={d.id} data-testid="nd-row" data-device={d.name}>
                  <TableCell className="max-w-60">
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
                  </TableCell>
                  <TableCell className="hidden sm:table-cell">{d.location?.name ?? <span className="text-fg-subtle">—</span>}</TableCell>
                  <TableCell className="hidden font-mono text-xs md:table-cell">{d.assigned_ips.join(", ")}</TableCell>
                  <TableCell className="hidden font-mono text-xs lg:table-cell">{d.added_by ?? "—"}</TableCell>
                  <TableCell className="hidden text-xs text-fg-muted lg:table-cell">
                    <RelativeTime value={d.added_date} />
                  </TableCell>
                  <TableCell className="hidden max-w-64 truncate text-xs text-fg-muted xl:table-cell">{d.description}</TableCell>
                  <TableCell className="w-10 pr-2 text-right">
                    <RowActions device={d} onEdit={() => setEditing(d)} onCliToken={() => setCliFor(d)} onDelete={() => setDeleting(d)} />
                  </TableCell>
                </TableRow>
              ))
            )}
          </TableBody>
        </Table>
      </TableContainer>
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
      <ConfirmDialog
        open={!!deleting}
        onOpenChange={(o) => !o && setDeleting(null)}
        title={t("deleteTitle", { name: deleting?.name ?? "" })}
        description={t("deleteDescription", { location: deleting?.location?.name ?? "" })}
        confirmLabel={t("deleteConfirm")}
        danger
        onConfirm={() => deleting && remove(deleting)}
      />
    </>
  );
}
