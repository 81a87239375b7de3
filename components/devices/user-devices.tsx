"use client";

import { useState, type ReactNode } from "react";
import Link from "next/link";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { Download, Info, Laptop, Pencil, Plus, Trash2 } from "lucide-react";
import { api } from "@/lib/api/client";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { DataList } from "@/components/ui/data-list";
import { downloadText } from "@/components/ui/download";
import { RelativeTime } from "@/components/ui/relative-time";
import { Skeleton } from "@/components/ui/skeleton";
import { toast } from "@/components/ui/toaster";
import { Tooltip } from "@/components/ui/tooltip";
import { configFileName, deviceKeys, fetchUserDeviceConfig, useUserDevices, type UserDevice, type UserDeviceNetwork } from "./api";
import { EditDeviceDialog } from "./edit-device-dialog";
import { useApiErrorText } from "./errors";
import { useDevicePermissions, type DevicePermissions } from "./permissions";

interface UserDevicesProps {
  username: string;
  /** The signed-in user's own devices (otherwise an admin looks at `username`'s). */
  self: boolean;
}

export function addDeviceHref(username: string, self: boolean): string {
  return self ? "/devices/add" : `/devices/add?user=${encodeURIComponent(username)}`;
}

function DownloadConfigButton({ device, network }: { device: UserDevice; network: UserDeviceNetwork }) {
  const t = useTranslations("devices.list");
  const errorText = useApiErrorText();
  const download = useMutation({
    mutationFn: () => fetchUserDeviceConfig(network.network_id, device.id),
    onSuccess: (text) => downloadText(configFileName(network.network_name, device.name), text),
    onError: (err) => toast.error(t("configFailed"), { subMessage: errorText(err) }),
  });
  const label = t("downloadConfig", { location: network.network_name });
  return (
    <Tooltip content={label}>
      <Button
        variant="ghost"
        size="icon"
        aria-label={label}
        loading={download.isPending}
        onClick={() => download.mutate()}
        data-testid="download-config"
      >
        <Download aria-hidden />
      </Button>
    </Tooltip>
  );
}

function LocationRow({ device, network, canDownload }: { device: UserDevice; network: UserDeviceNetwork; canDownload: boolean }) {
  const t = useTranslations("devices.list");
  return (
    <li
      className="grid grid-cols-[minmax(0,1fr)_auto] items-center gap-x-4 gap-y-1 py-2 sm:grid-cols-[minmax(8rem,1fr)_minmax(0,1.4fr)_minmax(7rem,1fr)_auto]"
      data-testid="device-location"
    >
      <span className="flex min-w-0 items-center gap-2 text-sm font-medium text-fg">
        <span className="truncate">{network.network_name}</span>
        {network.is_active && <Badge tone="success">{t("connected")}</Badge>}
      </span>
      <span className="col-start-1 row-start-2 min-w-0 font-mono text-xs text-fg-muted sm:col-start-auto sm:row-start-auto" data-testid="device-ips">
        {network.device_wireguard_ips.join(", ")}
      </span>
      <span className="col-start-1 row-start-3 text-xs text-fg-muted sm:col-start-auto sm:row-start-auto">
        <span className="sm:hidden">{t("lastConnected")}: </span>
        {network.last_connected_at ? <RelativeTime value={network.last_connected_at} /> : t("never")}
      </span>
      <span className="col-start-2 row-span-3 row-start-1 justify-self-end sm:col-start-auto sm:row-span-1 sm:row-start-auto">
        {canDownload ? <DownloadConfigButton device={device} network={network} /> : <span className="block w-8" />}
      </span>
    </li>
  );
}

function DeviceItem({ device, menu, can }: { device: UserDevice; menu: ReactNode; can: DevicePermissions }) {
  const t = useTranslations("devices.list");
  return (
    <li className="px-4 py-4" data-testid="user-device" data-device={device.name}>
      <div className="flex items-start gap-3">
        <div className="mt-0.5 flex size-8 shrink-0 items-center justify-center rounded-md bg-subtle text-fg-muted ring-1 ring-inset ring-border">
          <Laptop className="size-4" aria-hidden />
        </div>
        <div className="min-w-0 flex-1">
          <p className="truncate text-sm font-semibold text-fg">{device.name}</p>
          {device.description && <p className="mt-0.5 break-words text-xs text-fg-muted">{device.description}</p>}
          <p className="mt-1 flex flex-wrap items-center gap-x-3 gap-y-1 text-xs text-fg-muted">
            <span className="min-w-0 max-w-full truncate font-mono" title={device.wireguard_pubkey}>
              {device.wireguard_pubkey}
            </span>
            <span>
              {t("added")} <RelativeTime value={device.created} />
            </span>
          </p>
        </div>
        {menu}
      </div>
      {device.networks.length > 0 ? (
        <ul className="mt-3 divide-y divide-border rounded-md border border-border px-3 sm:ml-11">
          <li
            aria-hidden
            className="hidden grid-cols-[minmax(8rem,1fr)_minmax(0,1.4fr)_minmax(7rem,1fr)_auto] gap-x-4 py-1.5 text-xs font-medium text-fg-subtle sm:grid"
          >
            <span>{t("location")}</span>
            <span>{t("ips")}</span>
            <span>{t("lastConnected")}</span>
            <span className="w-8" />
          </li>
          {device.networks.map((n) => (
            <LocationRow key={n.network_id} device={device} network={n} canDownload={can.canDownload} />
          ))}
        </ul>
      ) : (
        <p className="mt-3 text-xs text-fg-muted sm:ml-11">{t("noLocations")}</p>
      )}
    </li>
  );
}

function ListSkeleton() {
  return (
    <ul aria-hidden className="divide-y divide-border">
      {[0, 1].map((i) => (
        <li key={i} className="flex gap-3 px-4 py-4">
          <Skeleton className="size-8" />
          <div className="flex flex-1 flex-col gap-2">
            <Skeleton className="h-4 w-40" />
            <Skeleton className="h-3 w-72 max-w-full" />
            <Skeleton className="mt-2 h-10 w-full" />
          </div>
        </li>
      ))}
    </ul>
  );
}

/** A user's WireGuard devices: addresses per location, last connection, edit, delete and configs. */
export function UserDevices({ username, self }: UserDevicesProps) {
  const t = useTranslations("devices.list");
  const errorText = useApiErrorText();
  const queryClient = useQueryClient();
  const devices = useUserDevices(username);
  const [editing, setEditing] = useState<UserDevice | null>(null);
  const addHref = addDeviceHref(username, self);
  const can = useDevicePermissions();

  async function remove(d: UserDevice) {
    try {
      await api.delete(`/device/${d.id}`);
      toast.success(t("deleted", { name: d.name }));
      await queryClient.invalidateQueries({ queryKey: deviceKeys.user(username) });
      void queryClient.invalidateQueries({ queryKey: ["user", username] });
    } catch (err) {
      toast.error(t("deleteFailed", { name: d.name }), { subMessage: errorText(err) });
      throw err;
    }
  }

  return (
    <Card data-testid="user-devices">
      <CardHeader
        title={t("title")}
        description={devices.data ? t("count", { count: devices.data.length }) : t("description")}
        action={
          can.canAdd && (
            <Button size="sm" asChild>
              <Link href={addHref} data-testid="add-device-link">
                <Plus aria-hidden />
                {t("add")}
              </Link>
            </Button>
          )
        }
      />
      {can.reason && (
        <p role="note" className="mx-4 mb-3 flex items-start gap-2 rounded-md bg-info-subtle px-3 py-2 text-xs text-fg" data-testid="devices-managed-notice">
          <Info className="mt-px size-3.5 shrink-0 text-info" aria-hidden />
          {t(`restricted.${can.reason}`)}
        </p>
      )}
      <DataList
        rows={devices.data}
        rowKey={(d) => d.id}
        error={devices.isError ? { message: t("loadFailed"), detail: errorText(devices.error), onRetry: () => devices.refetch(), retrying: devices.isFetching } : null}
        empty={{
          icon: Laptop,
          title: t("emptyTitle"),
          description: self ? t("emptyDescription") : t("emptyDescriptionOther"),
          action: can.canAdd && (
            <Button asChild>
              <Link href={addHref}>
                <Plus aria-hidden />
                {t("add")}
              </Link>
            </Button>
          ),
        }}
        loading={<ListSkeleton />}
        item={(d, menu) => <DeviceItem device={d} menu={menu} can={can} />}
        actions={
          can.canEdit || can.canDelete
            ? {
          label: (d) => t("actions", { name: d.name }),
          testId: "device-actions",
          items: (d) => [
            ...(can.canEdit ? [{ label: t("edit"), icon: Pencil, onSelect: () => setEditing(d) }] : []),
            ...(can.canDelete ? [{
              label: t("delete"),
              icon: Trash2,
              danger: true,
              separated: can.canEdit,
              testId: "device-delete",
              confirm: { title: t("deleteTitle", { name: d.name }), description: t("deleteDescription"), confirmLabel: t("deleteConfirm"), run: () => remove(d) },
            }] : []),
          ],
        }
            : undefined
        }
      />
      <EditDeviceDialog username={username} device={editing} onOpenChange={(o) => !o && setEditing(null)} />
    </Card>
  );
}
