"use client";

import Link from "next/link";
import type { UseQueryResult } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { ChevronRight, Router } from "lucide-react";
import type { Stripped } from "@/lib/api/client";
import { gatewayStatus, type GatewayStateBody } from "@/components/gateways/api";
import { GatewayStatusBadge } from "@/components/gateways/gateway-status-badge";
import type { Location } from "@/components/locations/api";
import { Skeleton } from "@/components/ui/skeleton";

type GatewayMap = Stripped<Record<string, GatewayStateBody[]>>;

/** One pill per location: its gateways' combined status, linking to the location's gateway setup. */
export function GatewayStrip({ locations, gateways }: { locations: readonly Location[]; gateways: UseQueryResult<GatewayMap> }) {
  const t = useTranslations("overview.gateways");
  return (
    <section aria-label={t("label")} className="flex flex-wrap gap-2" data-testid="overview-gateways">
      {locations.map((l) => {
        const list = gateways.data?.[String(l.id)] ?? [];
        const connected = list.filter((g) => g.connected).length;
        return (
          <Link
            key={l.id}
            href={`/locations/${l.id}/gateway`}
            aria-label={t("setupFor", { name: l.name })}
            data-testid="overview-gateway-item"
            data-location={l.name}
            className="group flex min-w-0 max-w-full items-center gap-2.5 rounded-lg border border-border bg-surface py-2 pl-3 pr-2 text-sm transition-colors hover:border-border-strong hover:bg-hover/50 focus-visible:outline-2"
          >
            <Router className="size-4 shrink-0 text-fg-muted" aria-hidden />
            <span className="min-w-0 truncate font-medium text-fg">{l.name}</span>
            {gateways.isPending ? (
              <Skeleton className="h-5 w-24" />
            ) : (
              <GatewayStatusBadge status={gatewayStatus(gateways.isError ? undefined : list, gateways.isError)} />
            )}
            {list.length > 0 && !gateways.isError && (
              <span className="text-xs tabular-nums text-fg-muted">{t("count", { connected, total: list.length })}</span>
            )}
            <ChevronRight className="size-4 shrink-0 text-fg-subtle transition-transform group-hover:translate-x-0.5" aria-hidden />
          </Link>
        );
      })}
    </section>
  );
}
