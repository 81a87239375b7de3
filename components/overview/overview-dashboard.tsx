"use client";

import { useEffect } from "react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useQuery } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { Network, Plus } from "lucide-react";
import { useEssentials } from "@/components/settings/queries";
import { locationsQuery, type Location } from "@/components/locations/api";
import { useAllGateways } from "@/components/gateways/api";
import { PropagationLine } from "@/components/gateways/gateway-sync";
import { Button } from "@/components/ui/button";
import { Card } from "@/components/ui/card";
import { EmptyState } from "@/components/ui/empty-state";
import { InlineError } from "@/components/ui/inline-error";
import { PageHeader } from "@/components/ui/page-header";
import { Skeleton } from "@/components/ui/skeleton";
import { ActivityStream } from "./activity-stream";
import { ConnectedUsers } from "./connected-users";
import { GatewayStrip } from "./gateway-strip";
import { InstanceSummary, type FreeLimits } from "./instance-summary";
import { OverviewControls, useOverviewParams } from "./overview-controls";
import { OVERVIEW_REFRESH_MS, useNetworkStats, useUserStats, useVpnActivity } from "./queries";
import { TransferChart } from "./transfer-chart";
import { VpnSummary } from "./vpn-summary";

export type { FreeLimits };

const NO_LOCATIONS: readonly Location[] = [];

function AddLocationButton() {
  const t = useTranslations("locations.list");
  return (
    <Button asChild>
      <Link href="/locations/new">
        <Plus aria-hidden />
        {t("add")}
      </Link>
    </Button>
  );
}

/** The VPN part of the overview for the chosen location(s) and range. */
function VpnOverview({ locations }: { locations: readonly Location[] }) {
  const p = useOverviewParams(locations);
  const selected = locations.find((l) => l.id === p.locationId) ?? null;
  const scope = selected ? [selected] : locations;
  const gateways = useAllGateways();
  const stats = useNetworkStats(p.locationId, p.hours);
  const userStats = useUserStats(
    scope.map((l) => l.id),
    p.hours,
  );
  const activity = useVpnActivity(selected?.name ?? null);
  const now = stats.dataUpdatedAt || Date.now();

  return (
    <div className="flex flex-col gap-4">
      <GatewayStrip locations={scope} gateways={gateways} />
      {scope.length === 1 && <PropagationLine locationId={scope[0].id} />}
      <VpnSummary stats={stats} hours={p.hours} />
      <div className="grid gap-4 lg:grid-cols-3">
        <TransferChart stats={stats} hours={p.hours} className="lg:col-span-2" />
        {/* The stream takes the chart's height on wide screens and scrolls inside it. */}
        <div className="relative min-h-80 lg:min-h-0">
          <ActivityStream activity={activity} locationName={selected?.name ?? null} className="max-h-[28rem] lg:absolute lg:inset-0 lg:max-h-none" />
        </div>
      </div>
      <ConnectedUsers
        result={userStats}
        locations={locations}
        showLocation={!selected && locations.length > 1}
        hours={p.hours}
        view={p.view}
        onView={p.setView}
        window={[now - p.hours * 3600_000, now]}
      />
    </div>
  );
}

function VpnSkeleton() {
  return (
    <div className="flex flex-col gap-4" aria-hidden>
      <div className="flex flex-wrap gap-2">
        <Skeleton className="h-10 w-64 rounded-lg" />
      </div>
      <div className="grid grid-cols-2 gap-3 sm:gap-4 xl:grid-cols-4">
        {[0, 1, 2, 3].map((i) => (
          <Skeleton key={i} className="h-[6.5rem] rounded-lg" />
        ))}
      </div>
      <div className="grid gap-4 lg:grid-cols-3">
        <Skeleton className="h-80 rounded-lg lg:col-span-2" />
        <Skeleton className="h-80 rounded-lg" />
      </div>
    </div>
  );
}

/**
 * VPN Overview for admins (location overview): gateways per location, who is connected
 * and what moved in the chosen range, the latest VPN events; then the instance summary.
 * Everything refreshes every 30 s; location, range and view live in the address.
 */
export function OverviewDashboard({ freeLimits }: { freeLimits: FreeLimits }) {
  const t = useTranslations("overview");
  const essentials = useEssentials();
  const router = useRouter();
  const wireguard = essentials.data?.wireguard_enabled !== false;
  const locations = useQuery({ ...locationsQuery, enabled: wireguard, refetchInterval: OVERVIEW_REFRESH_MS });
  const p = useOverviewParams(locations.data);
  // docs/api.md: with no location yet, the admin's landing page is the location wizard.
  useEffect(() => {
    if (locations.data && locations.data.length === 0) router.replace("/locations/new");
  }, [locations.data, router]);

  const hasLocations = !!locations.data && locations.data.length > 0;
  return (
    <>
      <PageHeader
        title={t("title")}
        description={t("vpnDescription")}
        action={
          wireguard && hasLocations ? (
            <OverviewControls
              locations={locations.data ?? NO_LOCATIONS}
              locationId={p.locationId}
              hours={p.hours}
              onLocation={p.setLocation}
              onHours={p.setHours}
            />
          ) : undefined
        }
      />
      <div className="flex flex-col gap-8">
        {wireguard &&
          (locations.isPending ? (
            <VpnSkeleton />
          ) : locations.isError ? (
            <InlineError
              message={t("locationsFailed")}
              detail={locations.error.message}
              onRetry={() => locations.refetch()}
              retrying={locations.isFetching}
            />
          ) : !hasLocations ? (
            <Card>
              <EmptyState
                icon={Network}
                title={t("locations.emptyTitle")}
                description={t("locations.emptyDescription")}
                action={<AddLocationButton />}
              />
            </Card>
          ) : (
            <VpnOverview locations={locations.data} />
          ))}
        <InstanceSummary freeLimits={freeLimits} />
      </div>
    </>
  );
}
