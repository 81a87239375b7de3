"use client";

import { useMemo } from "react";
import type { UseQueryResult } from "@tanstack/react-query";
import { useFormatter, useTranslations } from "next-intl";
import { ChartNoAxesColumn } from "lucide-react";
import { AreaChart } from "@/components/ui/area-chart";
import { Card, CardBody, CardHeader } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { localTimeZone } from "@/components/ui/relative-time";
import { Skeleton } from "@/components/ui/skeleton";
import { byteTicks, useFormatBytes } from "./format";
import type { NetworkStats } from "./queries";
import { fillSeries } from "./series";

const HEIGHT = 220;

/** Upload and download over the selected range (transfer_series on the server's bucket grid). */
export function TransferChart({ stats, hours, className }: { stats: UseQueryResult<NetworkStats>; hours: number; className?: string }) {
  const t = useTranslations("overview.chart");
  const format = useFormatter();
  const bytes = useFormatBytes();
  const tz = localTimeZone();
  const now = stats.dataUpdatedAt || 0;
  const filled = useMemo(
    () => (stats.data && now ? fillSeries(stats.data.transfer_series, now - hours * 3600_000, now) : null),
    [stats.data, now, hours],
  );
  const empty = !!stats.data && stats.data.transfer_series.every((p) => p.upload + p.download === 0);

  const formatX = (x: number) =>
    hours <= 24
      ? format.dateTime(new Date(x), { hour: "2-digit", minute: "2-digit", timeZone: tz })
      : format.dateTime(new Date(x), { month: "short", day: "numeric", hour: "2-digit", timeZone: tz });
  const formatXLong = (x: number) => format.dateTime(new Date(x), { dateStyle: "medium", timeStyle: "short", timeZone: tz });

  return (
    <Card className={className} data-testid="overview-chart">
      <CardHeader title={t("title")} description={t("description", { hours })} />
      {/* A steady height whatever the state, so the activity stream beside it keeps its size. */}
      <CardBody className="min-h-[17.5rem]">
        {stats.isPending ? (
          <div className="flex flex-col gap-3" aria-hidden>
            <Skeleton className="h-4 w-40" />
            <Skeleton style={{ height: HEIGHT }} className="w-full" />
          </div>
        ) : stats.isError && !stats.data ? (
          // The summary above already offers the retry for this same call.
          <EmptyState icon={ChartNoAxesColumn} title={t("loadFailed")} className="py-16" />
        ) : empty || !filled ? (
          <EmptyState icon={ChartNoAxesColumn} title={t("emptyTitle")} description={t("emptyDescription", { hours })} className="py-16" />
        ) : (
          <AreaChart
            xs={filled.xs}
            series={[
              { key: "download", label: t("download"), className: "text-accent", values: filled.download },
              { key: "upload", label: t("upload"), className: "text-success", values: filled.upload },
            ]}
            height={HEIGHT}
            formatX={formatX}
            formatXLong={formatXLong}
            formatY={bytes}
            yTicks={byteTicks}
            label={t("summary", { hours, download: bytes(stats.data!.download), upload: bytes(stats.data!.upload) })}
          />
        )}
      </CardBody>
    </Card>
  );
}
