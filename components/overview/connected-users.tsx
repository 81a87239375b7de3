"use client";

import { useMemo, useState, type ReactNode } from "react";
import Link from "next/link";
import { useFormatter, useTranslations } from "next-intl";
import { ArrowDown, ArrowUp, MonitorSmartphone, ShieldCheck, UsersRound } from "lucide-react";
import type { UserInfo } from "@/lib/api/types";
import type { Location } from "@/components/locations/api";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { DataTable, type DataColumn } from "@/components/ui/data-table";
import { ListStates } from "@/components/ui/list-states";
import { RelativeTime } from "@/components/ui/relative-time";
import { Skeleton } from "@/components/ui/skeleton";
import { Sparkline } from "@/components/ui/sparkline";
import { useFormatBytes } from "./format";
import { ViewToggle, type OverviewView } from "./overview-controls";
import type { StatsDevice, UserStats } from "./queries";
import { fillSeries, firstRows } from "./series";

export interface DeviceEntry {
  key: string;
  location: { id: number; name: string };
  device: StatsDevice;
  upload: number;
  download: number;
}

interface UserEntry {
  key: string;
  user: UserInfo | null;
  devices: DeviceEntry[];
  connected: boolean;
}

type UserStatsResult = {
  data: { locationId: number; stats: UserStats }[] | undefined;
  isPending: boolean;
  error: Error | null;
  isFetching: boolean;
  refetch: () => unknown;
};

function entry(locationId: number, names: Map<number, string>, d: StatsDevice): DeviceEntry {
  return {
    key: `${locationId}-${d.id}`,
    location: { id: locationId, name: names.get(locationId) ?? String(locationId) },
    device: d,
    upload: d.stats.reduce((n, p) => n + p.upload, 0),
    download: d.stats.reduce((n, p) => n + p.download, 0),
  };
}

/** "MFA" beside a device connected through an MFA session (locations with MFA), with its start on hover. */
function MfaSession({ d }: { d: DeviceEntry }) {
  const t = useTranslations("overview.users");
  const format = useFormatter();
  const since = d.device.mfa_session_since;
  if (!since) return null;
  return (
    <Badge tone="info" title={t("mfaSessionTitle", { time: format.dateTime(new Date(since), { dateStyle: "short", timeStyle: "short" }) })} data-testid="overview-mfa-session">
      <ShieldCheck aria-hidden />
      {t("mfaSession")}
    </Badge>
  );
}

const byConnected = (a: { connected: boolean }, b: { connected: boolean }) => Number(b.connected) - Number(a.connected);

/** Users (and network devices) of the stats answers of one or more locations, merged per user; connected first. */
function merge(results: { locationId: number; stats: UserStats }[], locations: readonly Location[]): { users: UserEntry[]; network: UserEntry | null } {
  const names = new Map(locations.map((l) => [l.id, l.name]));
  const users = new Map<number, UserEntry>();
  const network: DeviceEntry[] = [];
  for (const { locationId, stats } of results) {
    for (const ud of stats.user_devices) {
      const u = users.get(ud.user.id) ?? { key: `u${ud.user.id}`, user: ud.user, devices: [], connected: false };
      u.devices.push(...ud.devices.map((d) => entry(locationId, names, d)));
      users.set(ud.user.id, u);
    }
    network.push(...stats.network_devices.map((d) => entry(locationId, names, d)));
  }
  const sortDevices = (list: DeviceEntry[]) =>
    list.sort((a, b) => Number(b.device.connected ?? false) - Number(a.device.connected ?? false) || a.device.name.localeCompare(b.device.name));
  const list = [...users.values()].map((u) => ({ ...u, devices: sortDevices(u.devices), connected: u.devices.some((d) => d.device.connected) }));
  list.sort((a, b) => byConnected(a, b) || displayName(a.user).localeCompare(displayName(b.user)));
  return {
    users: list,
    network: network.length ? { key: "network", user: null, devices: sortDevices(network), connected: network.some((d) => d.device.connected) } : null,
  };
}

function displayName(u: UserInfo | null): string {
  if (!u) return "";
  const full = `${u.first_name ?? ""} ${u.last_name ?? ""}`.trim();
  return full || u.username;
}

function initials(u: UserInfo): string {
  const parts = [u.first_name, u.last_name].filter((p): p is string => !!p && p.trim() !== "");
  return (parts.length ? parts.map((p) => p.trim()[0]) : [u.username[0]]).join("").slice(0, 2).toUpperCase();
}

function Dot({ on, label }: { on: boolean; label: string }) {
  return (
    <span className="relative flex size-2 shrink-0" role="img" aria-label={label} title={label}>
      {on && <span className="absolute inline-flex size-full animate-ping rounded-full bg-success opacity-40 motion-reduce:hidden" />}
      <span className={cn("relative inline-flex size-2 rounded-full", on ? "bg-success" : "bg-fg-subtle/60")} />
    </span>
  );
}

function DeviceTraffic({ d, window, compact }: { d: DeviceEntry; window: [number, number]; compact?: boolean }) {
  const t = useTranslations("overview.users");
  const bytes = useFormatBytes();
  const filled = useMemo(() => fillSeries(d.device.stats, window[0], window[1]), [d.device.stats, window]);
  const xs = filled.xs;
  return (
    <span className="flex items-center gap-3">
      <Sparkline
        width={compact ? 88 : 110}
        height={26}
        xDomain={[xs[0], xs[xs.length - 1]]}
        series={[
          { points: xs.map((x, i) => ({ x, y: filled.download[i] })), className: "text-accent" },
          { points: xs.map((x, i) => ({ x, y: filled.upload[i] })), className: "text-success" },
        ]}
        label={t("trafficLabel", { download: bytes(d.download), upload: bytes(d.upload) })}
      />
      <span className="flex flex-col text-[11px] leading-4 tabular-nums text-fg-muted">
        <span className="inline-flex items-center gap-0.5 whitespace-nowrap">
          <ArrowDown className="size-3 text-accent" aria-hidden />
          {bytes(d.download)}
        </span>
        <span className="inline-flex items-center gap-0.5 whitespace-nowrap">
          <ArrowUp className="size-3 text-success" aria-hidden />
          {bytes(d.upload)}
        </span>
      </span>
    </span>
  );
}

function ConnectedSince({ d }: { d: DeviceEntry }) {
  const t = useTranslations("overview.users");
  const at = d.device.connected_at;
  if (!at) return <span className="text-xs text-fg-subtle">{t("never")}</span>;
  return (
    <span className="text-xs text-fg-muted">
      {t.rich(d.device.connected ? "connectedSince" : "lastSeen", { time: () => <RelativeTime value={at} /> })}
    </span>
  );
}

function Ips({ d }: { d: DeviceEntry }) {
  return <span className="font-mono text-xs text-fg">{d.device.wireguard_ips.join(", ")}</span>;
}

function UserCard({ u, showLocation, window }: { u: UserEntry; showLocation: boolean; window: [number, number] }) {
  const t = useTranslations("overview.users");
  return (
    <li className="flex min-w-0 flex-col rounded-lg border border-border bg-surface" data-testid="overview-user-card" data-username={u.user?.username ?? ""}>
      <div className="flex items-center gap-3 border-b border-border px-3 py-2.5">
        {u.user ? (
          <span aria-hidden className="flex size-8 shrink-0 items-center justify-center rounded-full bg-accent-subtle text-xs font-semibold text-accent">
            {initials(u.user)}
          </span>
        ) : (
          <span aria-hidden className="flex size-8 shrink-0 items-center justify-center rounded-full bg-subtle text-fg-muted ring-1 ring-inset ring-border">
            <MonitorSmartphone className="size-4" />
          </span>
        )}
        <div className="min-w-0 flex-1">
          <p className="truncate text-sm font-medium text-fg">{u.user ? displayName(u.user) : t("networkDevices")}</p>
          {u.user && <p className="truncate font-mono text-xs text-fg-muted">{u.user.username}</p>}
        </div>
        <Badge tone={u.connected ? "success" : "neutral"}>{t("deviceCount", { count: u.devices.length })}</Badge>
      </div>
      <ul className="divide-y divide-border">
        {u.devices.slice(0, CARD_DEVICES).map((d) => (
          <li key={d.key} className="flex flex-col gap-1.5 px-3 py-2.5" data-testid="overview-device">
            <div className="flex items-center gap-2">
              <Dot on={!!d.device.connected} label={d.device.connected ? t("connected") : t("disconnected")} />
              <span className="min-w-0 flex-1 truncate text-sm text-fg">{d.device.name}</span>
              <MfaSession d={d} />
              {showLocation && <Badge className="max-w-32 truncate">{d.location.name}</Badge>}
            </div>
            <div className="flex flex-wrap items-end justify-between gap-x-4 gap-y-2 pl-4">
              <dl className="grid min-w-0 grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-xs">
                <dt className="text-fg-muted">{t("vpnIp")}</dt>
                <dd className="min-w-0 truncate">
                  <Ips d={d} />
                </dd>
                <dt className="text-fg-muted">{t("publicIp")}</dt>
                <dd className="min-w-0 truncate font-mono text-fg">{d.device.public_ip ?? "—"}</dd>
                <dt className="sr-only">{t("connection")}</dt>
                <dd className="col-span-2">
                  <ConnectedSince d={d} />
                </dd>
              </dl>
              <DeviceTraffic d={d} window={window} compact />
            </div>
          </li>
        ))}
      </ul>
      {u.devices.length > CARD_DEVICES && (
        <div className="border-t border-border px-3 py-2 text-xs text-fg-muted" data-testid="overview-more-devices">
          {u.user ? (
            <Link href={`/users/${encodeURIComponent(u.user.username)}`} className="text-accent hover:underline">
              {t("moreDevices", { count: u.devices.length - CARD_DEVICES })}
            </Link>
          ) : (
            <Link href="/network-devices" className="text-accent hover:underline">
              {t("moreDevices", { count: u.devices.length - CARD_DEVICES })}
            </Link>
          )}
        </div>
      )}
    </li>
  );
}

/** Devices shown per user card (the rest behind a link), cards and table rows per "show more". */
const CARD_DEVICES = 5;
const CARDS_STEP = 24;
const ROWS_STEP = 100;

function ShowMore({ shown, total, onMore }: { shown: number; total: number; onMore: () => void }) {
  const t = useTranslations("overview.users");
  if (shown >= total) return null;
  return (
    <div className="flex items-center justify-center gap-3 border-t border-border px-4 py-3 text-xs text-fg-muted">
      <span>{t("showing", { shown, total })}</span>
      <Button size="sm" variant="secondary" onClick={onMore} data-testid="overview-show-more">
        {t("showMore")}
      </Button>
    </div>
  );
}

function UserCell({ u }: { u: UserEntry }) {
  const t = useTranslations("overview.users");
  if (!u.user) return <Badge>{t("networkDevice")}</Badge>;
  return (
    <span className="flex min-w-0 items-center gap-2">
      <span aria-hidden className="flex size-6 shrink-0 items-center justify-center rounded-full bg-accent-subtle text-[10px] font-semibold text-accent">
        {initials(u.user)}
      </span>
      <span className="min-w-0">
        <span className="block truncate text-sm font-medium text-fg">{displayName(u.user)}</span>
        <span className="block truncate font-mono text-xs text-fg-muted">{u.user.username}</span>
      </span>
    </span>
  );
}

/** A row of the table: one device, under its user (the user's cell spans their devices). */
interface DeviceRow {
  u: UserEntry;
  d: DeviceEntry;
  /** The device's place among its user's rows. */
  i: number;
}

function useListColumns(showLocation: boolean, window: [number, number]): DataColumn<DeviceRow>[] {
  const t = useTranslations("overview.users");
  return [
    {
      header: t("user"),
      skeleton: "w-28",
      cellClassName: "max-w-56 align-top [&]:pt-2.5",
      rowSpan: ({ u, i }) => (i === 0 ? u.devices.length : 0),
      cell: ({ u }) => <UserCell u={u} />,
    },
    {
      header: t("device"),
      skeleton: "w-24",
      cellClassName: "max-w-56",
      cell: ({ d }) => (
        <span className="flex min-w-0 items-center gap-2">
          <Dot on={!!d.device.connected} label={d.device.connected ? t("connected") : t("disconnected")} />
          <span className="min-w-0">
            <span className="flex min-w-0 items-center gap-1.5">
              <span className="block truncate text-sm text-fg">{d.device.name}</span>
              <MfaSession d={d} />
            </span>
            {showLocation && <span className="block truncate text-xs text-fg-muted">{d.location.name}</span>}
            <span className="block truncate font-mono text-xs text-fg-muted md:hidden">{d.device.wireguard_ips.join(", ")}</span>
          </span>
        </span>
      ),
    },
    { header: t("vpnIp"), skeleton: "w-20", className: "hidden md:table-cell", cell: ({ d }) => <Ips d={d} /> },
    { header: t("publicIp"), skeleton: "w-24", className: "hidden lg:table-cell", cellClassName: "font-mono text-xs", cell: ({ d }) => d.device.public_ip ?? "—" },
    { header: t("connection"), skeleton: "w-24", className: "hidden sm:table-cell", cell: ({ d }) => <ConnectedSince d={d} /> },
    { header: t("traffic"), skeleton: "w-32", className: "hidden md:table-cell", cell: ({ d }) => <DeviceTraffic d={d} window={window} /> },
  ];
}

interface ConnectedUsersProps {
  result: UserStatsResult;
  locations: readonly Location[];
  showLocation: boolean;
  hours: number;
  view: OverviewView;
  onView: (v: OverviewView) => void;
  /** [from, now] of the data in ms, for the sparklines' time axis. */
  window: [number, number];
}

/** Users with a device active in the range (connected users), as cards or a table. */
export function ConnectedUsers({ result, locations, showLocation, hours, view, onView, window }: ConnectedUsersProps) {
  const t = useTranslations("overview.users");
  const merged = useMemo(() => (result.data ? merge(result.data, locations) : null), [result.data, locations]);
  const entries = merged ? [...merged.users, ...(merged.network ? [merged.network] : [])] : [];
  const connectedUsers = merged?.users.filter((u) => u.connected).length ?? 0;
  const totalRows = entries.reduce((n, u) => n + u.devices.length, 0);
  const [cards, setCards] = useState(CARDS_STEP);
  const [rows, setRows] = useState(ROWS_STEP);

  const columns = useListColumns(showLocation, window);
  const loading = result.isPending && !result.data;
  const empty = { icon: UsersRound, title: t("emptyTitle"), description: t("emptyDescription", { hours }) };
  const table = (list: UserEntry[] | undefined, footer?: ReactNode) => (
    <DataTable
      columns={columns}
      rows={list?.flatMap((u) => u.devices.map((d, i) => ({ u, d, i })))}
      rowKey={(r) => r.d.key}
      rowProps={(r) => ({ "data-testid": "overview-device-row", "data-username": r.u.user?.username ?? "" })}
      empty={empty}
      skeletonRows={4}
      className="max-h-[32rem] rounded-none border-x-0 border-b-0"
      footer={footer}
    />
  );

  const body = (
    <ListStates
      rows={loading ? undefined : entries}
      error={result.error && !result.data && !loading ? { message: t("loadFailed"), detail: result.error.message, onRetry: () => result.refetch(), retrying: result.isFetching } : null}
      empty={empty}
      loading={
        view === "list" ? (
          table(undefined)
        ) : (
          <div className="grid gap-3 p-4 md:grid-cols-2 2xl:grid-cols-3" aria-hidden>
            {[0, 1].map((i) => (
              <Skeleton key={i} className="h-40 rounded-lg" />
            ))}
          </div>
        )
      }
    >
      {(list) =>
        view === "list" ? (
          table(firstRows(list, rows), <ShowMore shown={Math.min(rows, totalRows)} total={totalRows} onMore={() => setRows((n) => n + ROWS_STEP)} />)
        ) : (
          <>
            <ul className="grid gap-3 p-4 md:grid-cols-2 2xl:grid-cols-3">
              {list.slice(0, cards).map((u) => (
                <UserCard key={u.key} u={u} showLocation={showLocation} window={window} />
              ))}
            </ul>
            <ShowMore shown={Math.min(cards, list.length)} total={list.length} onMore={() => setCards((n) => n + CARDS_STEP)} />
          </>
        )
      }
    </ListStates>
  );

  return (
    <Card data-testid="overview-users" data-view={view}>
      <CardHeader
        title={t("title")}
        description={merged ? t("description", { connected: connectedUsers, total: merged.users.length, hours }) : t("descriptionLoading", { hours })}
        action={<ViewToggle view={view} onChange={onView} />}
      />
      {body}
    </Card>
  );
}
