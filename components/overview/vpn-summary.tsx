"use client";

import type { UseQueryResult } from "@tanstack/react-query";
import { useFormatter, useTranslations } from "next-intl";
import { ArrowDown, ArrowDownUp, ArrowUp, Laptop, MonitorSmartphone, Users } from "lucide-react";
import { InlineError } from "@/components/ui/inline-error";
import { useFormatBytes } from "./format";
import type { NetworkStats } from "./queries";
import { StatTile, StatTileSkeleton } from "./stat-tile";

/** Connected now and active in the range: users, user devices, network devices; and the transfer. */
export function VpnSummary({ stats, hours }: { stats: UseQueryResult<NetworkStats>; hours: number }) {
  const t = useTranslations("overview.summary");
  const format = useFormatter();
  const bytes = useFormatBytes();

  if (stats.isPending) {
    return (
      <div className="grid grid-cols-2 gap-3 sm:gap-4 xl:grid-cols-4" aria-hidden>
        {[0, 1, 2, 3].map((i) => (
          <StatTileSkeleton key={i} />
        ))}
      </div>
    );
  }
  if (stats.isError && !stats.data) {
    return <InlineError message={t("loadFailed")} detail={stats.error.message} onRetry={() => stats.refetch()} retrying={stats.isFetching} />;
  }
  const s = stats.data!;
  const active = (n: number) => t("activeInRange", { count: format.number(n), hours });
  return (
    <div className="grid grid-cols-2 gap-3 sm:gap-4 xl:grid-cols-4" data-testid="overview-summary">
      <StatTile icon={Users} label={t("users")} value={<span data-testid="overview-connected-users">{format.number(s.current_active_users)}</span>} footer={active(s.active_users)} />
      <StatTile icon={Laptop} label={t("devices")} value={<span data-testid="overview-connected-devices">{format.number(s.current_active_user_devices)}</span>} footer={active(s.active_user_devices)} />
      <StatTile
        icon={MonitorSmartphone}
        label={t("networkDevices")}
        value={format.number(s.current_active_network_devices)}
        footer={active(s.active_network_devices)}
      />
      <StatTile
        icon={ArrowDownUp}
        label={t("transfer", { hours })}
        value={
          <span className="flex flex-wrap items-baseline gap-x-4 gap-y-1" data-testid="overview-transfer">
            <span className="inline-flex items-center gap-1" title={t("download")}>
              <ArrowDown className="size-4 text-accent" aria-hidden />
              <span className="sr-only">{t("download")}</span>
              {bytes(s.download)}
            </span>
            <span className="inline-flex items-center gap-1" title={t("upload")}>
              <ArrowUp className="size-4 text-success" aria-hidden />
              <span className="sr-only">{t("upload")}</span>
              {bytes(s.upload)}
            </span>
          </span>
        }
        footer={t("transferTotal", { total: bytes(s.upload + s.download) })}
      />
    </div>
  );
}
