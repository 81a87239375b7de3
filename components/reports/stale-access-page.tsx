"use client";

import { useMemo, useState, type ReactNode } from "react";
import Link from "next/link";
import { useTranslations } from "next-intl";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { CheckCircle2, Download } from "lucide-react";
import { api, type Stripped } from "@/lib/api/client";
import type { StaleAccessReport as ReportWire } from "@/lib/reports/service";

/** The report as the client sees it (nulls read as undefined). */
type StaleAccessReport = Stripped<ReportWire>;
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { DataTable, type DataColumn } from "@/components/ui/data-table";
import { PageHeader } from "@/components/ui/page-header";
import { RelativeTime } from "@/components/ui/relative-time";
import { Select, SelectContent, SelectItem, SelectTrigger, SelectValue } from "@/components/ui/select";
import { useBulkSelection, type BulkSelection } from "@/components/ui/bulk-selection";
import { UsersBulkBar } from "@/components/users/users-bulk";
import { DevicesBulkBar } from "@/components/network-devices/devices-bulk";

const WINDOWS = [30, 60, 90, 180, 365] as const;
/** Rows shown per section at first, and added by each "show more". */
const STEP = 50;

function When({ value, never }: { value?: string | null; never: string }) {
  return value ? <RelativeTime value={value} /> : <span className="text-fg-subtle">{never}</span>;
}

/** One list of the report: a heading with its count, the table, and "show more" for long lists. */
function Section<T>({
  id,
  title,
  hint,
  rows,
  columns,
  rowKey,
  loading,
  error,
  onRetry,
  selection,
  rowName,
  bulk,
}: {
  /** Bulk actions on this section's rows: the selection, each row's name, and the bar. */
  selection?: BulkSelection<unknown>;
  rowName?: (r: T) => string;
  bulk?: ReactNode;
  id: string;
  title: string;
  hint: string;
  rows: T[] | undefined;
  columns: DataColumn<T>[];
  rowKey: (r: T) => number;
  loading: boolean;
  error: string | null;
  onRetry: () => void;
}) {
  const t = useTranslations("reports.staleAccess");
  const tb = useTranslations("bulk");
  const [shown, setShown] = useState(STEP);
  const total = rows?.length ?? 0;
  const visible = loading ? undefined : rows?.slice(0, shown);
  return (
    <section className="flex flex-col gap-3" data-testid={`stale-${id}`}>
      <div className="flex flex-wrap items-baseline gap-2">
        <h2 className="text-base font-semibold text-fg">{title}</h2>
        {rows && (
          <Badge tone={total ? "warning" : "success"} data-testid={`stale-${id}-count`}>
            {total}
          </Badge>
        )}
      </div>
      <p className="-mt-2 text-sm text-fg-muted">{hint}</p>
      {bulk}
      <DataTable
        columns={columns}
        rows={visible}
        rowKey={rowKey}
        selection={
          selection && rowName
            ? selection.table(visible, rowKey, rowName, { row: (name) => tb("selectRow", { name }), page: tb("selectPage") })
            : undefined
        }
        skeletonRows={3}
        error={error ? { message: t("loadFailed"), detail: error, onRetry, retrying: loading } : null}
        empty={{ icon: CheckCircle2, title: t("nothing"), description: t("nothingHint") }}
        rowProps={() => ({ "data-testid": `stale-${id}-row` })}
        footer={
          total > shown ? (
            <div className="flex items-center justify-between gap-3 px-4 py-2 text-sm text-fg-muted">
              <span>{t("showing", { shown, total })}</span>
              <Button variant="secondary" size="sm" onClick={() => setShown((n) => n + STEP * 2)} data-testid={`stale-${id}-more`}>
                {t("showMore")}
              </Button>
            </div>
          ) : undefined
        }
      />
    </section>
  );
}

const cellLink = (href: string, text: ReactNode) => (
  <Link href={href} className="block max-w-full truncate font-medium text-fg hover:underline">
    {text}
  </Link>
);

/** Reports → Stale access: what nobody has used for a while, to review and tidy up. */
export function StaleAccessPage() {
  const t = useTranslations("reports.staleAccess");
  const [days, setDays] = useState<number>(90);
  const report = useQuery({
    queryKey: ["report", "stale_access", days],
    queryFn: ({ signal }) => api.get<ReportWire>(`/report/stale_access?days=${days}`, { signal }),
    placeholderData: keepPreviousData,
  });
  const r = report.data;
  const loading = report.isPending || (report.isFetching && report.isPlaceholderData);
  const error = report.isError ? report.error.message : null;
  const retry = () => void report.refetch();
  const never = t("never");
  // Bulk actions on what the report found: disable or delete stale users, delete stale devices.
  const userEntries = useMemo(() => (r?.users ?? []).map((u): [number, string] => [u.id, u.username]), [r?.users]);
  const deviceEntries = useMemo(() => (r?.devices ?? []).map((d): [number, string] => [d.id, d.name]), [r?.devices]);
  const userSelection = useBulkSelection({ report: days }, userEntries);
  const deviceSelection = useBulkSelection({ report: days }, deviceEntries);

  const userCols: DataColumn<StaleAccessReport["users"][number]>[] = [
    {
      header: t("columns.user"),
      skeleton: "w-32",
      cellClassName: "max-w-0 w-[40%]",
      cell: (u) => (
        <>
          {cellLink(`/users/${encodeURIComponent(u.username)}`, u.username)}
          <p className="truncate text-xs text-fg-muted">
            {u.name} · {u.email}
            {u.is_admin && <Badge className="ml-1">{t("admin")}</Badge>}
          </p>
        </>
      ),
    },
    { header: t("columns.lastSignIn"), skeleton: "w-20", cell: (u) => <When value={u.last_sign_in} never={never} /> },
    { header: t("columns.lastHandshake"), skeleton: "w-20", className: "hidden sm:table-cell", cell: (u) => <When value={u.last_handshake} never={never} /> },
    { header: t("columns.created"), skeleton: "w-20", className: "hidden md:table-cell", cell: (u) => <RelativeTime value={u.created_at} /> },
  ];
  const deviceCols: DataColumn<StaleAccessReport["devices"][number]>[] = [
    {
      header: t("columns.device"),
      skeleton: "w-32",
      cellClassName: "max-w-0 w-[40%]",
      cell: (d) => (
        <>
          {d.device_type === "network" ? cellLink("/network-devices", d.name) : cellLink(`/users/${encodeURIComponent(d.owner)}`, d.name)}
          <p className="truncate text-xs text-fg-muted">
            <Badge className="mr-1">{t(`deviceType.${d.device_type}`)}</Badge>
            {d.owner}
            {d.locations.length ? ` · ${d.locations.join(", ")}` : ""}
          </p>
        </>
      ),
    },
    { header: t("columns.lastHandshake"), skeleton: "w-20", cell: (d) => <When value={d.last_handshake} never={never} /> },
    { header: t("columns.created"), skeleton: "w-20", className: "hidden md:table-cell", cell: (d) => <RelativeTime value={d.created_at} /> },
  ];
  const adminCols: DataColumn<StaleAccessReport["admins_without_mfa"][number]>[] = [
    {
      header: t("columns.user"),
      skeleton: "w-32",
      cellClassName: "max-w-0 w-[50%]",
      cell: (a) => (
        <>
          {cellLink(`/users/${encodeURIComponent(a.username)}`, a.username)}
          <p className="truncate text-xs text-fg-muted">{a.email}</p>
        </>
      ),
    },
    { header: t("columns.lastSignIn"), skeleton: "w-20", cell: (a) => <When value={a.last_sign_in} never={never} /> },
  ];
  const tokenCols: DataColumn<StaleAccessReport["api_tokens"][number]>[] = [
    {
      header: t("columns.token"),
      skeleton: "w-32",
      cellClassName: "max-w-0 w-[40%]",
      cell: (k) => (
        <>
          <p className="truncate font-medium text-fg">{k.name}</p>
          <p className="truncate text-xs text-fg-muted">{k.owner}</p>
        </>
      ),
    },
    { header: t("columns.lastUsed"), skeleton: "w-20", cell: (k) => <When value={k.last_used_at} never={never} /> },
    { header: t("columns.created"), skeleton: "w-20", className: "hidden md:table-cell", cell: (k) => <RelativeTime value={k.created_at} /> },
  ];
  const groupCols: DataColumn<StaleAccessReport["groups_without_members"][number]>[] = [
    { header: t("columns.group"), skeleton: "w-32", cellClassName: "max-w-0 w-[40%]", cell: (g) => cellLink("/groups", g.name) },
    { header: t("columns.locations"), skeleton: "w-40", cellClassName: "max-w-0", cell: (g) => <p className="truncate text-sm">{g.locations.join(", ")}</p> },
  ];

  return (
    <div className="flex flex-col gap-8">
      <PageHeader
        title={t("title")}
        description={t("description")}
        action={
          <div className="flex flex-wrap items-center gap-2">
            <Select value={String(days)} onValueChange={(v) => setDays(Number(v))}>
              <SelectTrigger className="w-40" data-testid="stale-days" aria-label={t("window")}>
                <SelectValue />
              </SelectTrigger>
              <SelectContent>
                {WINDOWS.map((d) => (
                  <SelectItem key={d} value={String(d)}>
                    {t("days", { days: d })}
                  </SelectItem>
                ))}
              </SelectContent>
            </Select>
            <Button asChild variant="secondary" data-testid="stale-csv">
              <a href={`/api/v1/report/stale_access?days=${days}&format=csv`} download>
                <Download aria-hidden />
                {t("csv")}
              </a>
            </Button>
          </div>
        }
      />
      <Section
        id="users"
        title={t("users")}
        hint={t("usersHint", { days })}
        rows={r?.users}
        columns={userCols}
        rowKey={(u) => u.id}
        loading={loading}
        error={error}
        onRetry={retry}
        selection={userSelection as BulkSelection<unknown>}
        rowName={(u) => u.username}
        bulk={<UsersBulkBar selection={userSelection as BulkSelection<never>} total={r?.users.length} actions={["disable", "remove_from_groups", "delete"]} />}
      />
      <Section
        id="devices"
        title={t("devices")}
        hint={t("devicesHint", { days })}
        rows={r?.devices}
        columns={deviceCols}
        rowKey={(d) => d.id}
        loading={loading}
        error={error}
        onRetry={retry}
        selection={deviceSelection as BulkSelection<unknown>}
        rowName={(d) => d.name}
        bulk={<DevicesBulkBar selection={deviceSelection as BulkSelection<never>} total={r?.devices.length} actions={["delete"]} />}
      />
      <Section id="admins" title={t("admins")} hint={t("adminsHint")} rows={r?.admins_without_mfa} columns={adminCols} rowKey={(a) => a.id} loading={loading} error={error} onRetry={retry} />
      <Section id="tokens" title={t("tokens")} hint={t("tokensHint", { days })} rows={r?.api_tokens} columns={tokenCols} rowKey={(k) => k.id} loading={loading} error={error} onRetry={retry} />
      <Section id="groups" title={t("groups")} hint={t("groupsHint")} rows={r?.groups_without_members} columns={groupCols} rowKey={(g) => g.id} loading={loading} error={error} onRetry={retry} />
    </div>
  );
}
