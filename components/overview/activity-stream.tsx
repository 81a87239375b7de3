"use client";

import { useMemo } from "react";
import Link from "next/link";
import type { UseQueryResult } from "@tanstack/react-query";
import { useTranslations } from "next-intl";
import { ArrowRight, Activity } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Card, CardHeader } from "@/components/ui/card";
import { cn } from "@/components/ui/cn";
import { EmptyState } from "@/components/ui/empty-state";
import { InlineError } from "@/components/ui/inline-error";
import { RelativeTime } from "@/components/ui/relative-time";
import { Skeleton } from "@/components/ui/skeleton";
import type { VpnActivityPage } from "./queries";

/** Event names in the user's language (the activity log's labels; every recorded event has one). */
function useEventLabel() {
  const activity = useTranslations("activity");
  return useMemo(() => {
    const humanize = (v: string) => v.replace(/[_-]+/g, " ").replace(/^\w/, (c) => c.toUpperCase());
    return (e: string) => (activity.has(`events.${e}` as never) ? activity(`events.${e}` as never) : humanize(e));
  }, [activity]);
}

function tone(event: string): string {
  if (/disconnected|removed|failed/.test(event)) return "bg-fg-subtle";
  if (/connected|added/.test(event)) return "bg-success";
  return "bg-info";
}

/** The latest VPN events (module vpn) of the selected location, or of all locations. */
export function ActivityStream({ activity, locationName, className }: { activity: UseQueryResult<VpnActivityPage>; locationName: string | null; className?: string }) {
  const t = useTranslations("overview.activity");
  const label = useEventLabel();
  const href = `/activity?module=vpn${locationName ? `&location=${encodeURIComponent(locationName)}` : ""}`;
  const events = activity.data?.data ?? [];

  return (
    <Card className={cn("flex min-h-0 flex-col", className)} data-testid="overview-activity">
      <CardHeader
        title={t("title")}
        description={locationName ? t("descriptionOne", { name: locationName }) : t("descriptionAll")}
        action={
          <Button variant="ghost" size="sm" asChild>
            <Link href={href}>
              {t("viewAll")}
              <ArrowRight aria-hidden />
            </Link>
          </Button>
        }
      />
      <div className="min-h-0 flex-1 overflow-y-auto">
        {activity.isPending ? (
          <ul className="flex flex-col gap-4 p-4" aria-hidden>
            {[0, 1, 2, 3, 4].map((i) => (
              <li key={i} className="flex gap-3">
                <Skeleton className="mt-1 size-2 rounded-full" />
                <div className="flex flex-1 flex-col gap-1.5">
                  <Skeleton className="h-4 w-3/4" />
                  <Skeleton className="h-3 w-1/3" />
                </div>
              </li>
            ))}
          </ul>
        ) : activity.isError && !activity.data ? (
          <div className="p-4">
            <InlineError message={t("loadFailed")} detail={activity.error.message} onRetry={() => activity.refetch()} retrying={activity.isFetching} />
          </div>
        ) : events.length === 0 ? (
          <EmptyState icon={Activity} title={t("emptyTitle")} description={t("emptyDescription")} />
        ) : (
          <ol className="relative px-4 py-3">
            {events.map((e, i) => (
              <li key={e.id} className="relative flex gap-3 pb-4 last:pb-1" data-testid="overview-activity-item" data-event={e.event}>
                {i < events.length - 1 && <span aria-hidden className="absolute left-[3px] top-3 h-full w-px bg-border" />}
                <span aria-hidden className={cn("relative mt-1.5 size-[7px] shrink-0 rounded-full ring-2 ring-surface", tone(e.event))} />
                <div className="min-w-0 flex-1">
                  <p className="text-sm text-fg">{e.description || label(e.event)}</p>
                  <p className="mt-0.5 flex flex-wrap items-center gap-x-1.5 text-xs text-fg-muted">
                    <RelativeTime value={e.timestamp} />
                    <span aria-hidden>·</span>
                    <span>{label(e.event)}</span>
                    {!locationName && e.location && (
                      <>
                        <span aria-hidden>·</span>
                        <span className="truncate">{e.location}</span>
                      </>
                    )}
                    {e.username && e.username !== "system" && (
                      <>
                        <span aria-hidden>·</span>
                        <span className="truncate font-mono">{e.username}</span>
                      </>
                    )}
                  </p>
                </div>
              </li>
            ))}
          </ol>
        )}
      </div>
    </Card>
  );
}
