import { keepPreviousData, queryOptions, useQueries, useQuery } from "@tanstack/react-query";
import { api, type Stripped } from "@/lib/api/client";
import type { UserPageBody } from "@/lib/api/types";
import type { listActivity } from "@/lib/activity/service";
import type { locationUserStats, networkStats } from "@/lib/stats/service";

/** The number of user accounts: one one-row page of GET /user, whose pagination carries the total. */
export const userCountQuery = queryOptions({
  queryKey: ["users", "count"],
  queryFn: async () => (await api.get<UserPageBody>("/user", { query: { page: 1, page_size: 1 } })).pagination.total_items,
});

export function useUserCount() {
  return useQuery(userCountQuery);
}

/** The overview's time ranges in hours (1 hour by default). */
export const HOUR_OPTIONS = [1, 6, 12, 24, 48, 168] as const;
export const DEFAULT_HOURS = 1;
/** Everything on the overview refreshes on this period. */
export const OVERVIEW_REFRESH_MS = 30_000;

export type NetworkStatsBody = Awaited<ReturnType<typeof networkStats>>;
export type NetworkStats = Stripped<NetworkStatsBody>;
export type UserStatsBody = Awaited<ReturnType<typeof locationUserStats>>;
export type UserStats = Stripped<UserStatsBody>;
export type StatsDevice = UserStats["network_devices"][number];
type ActivityPageBody = Awaited<ReturnType<typeof listActivity>>;
export type VpnActivityPage = Stripped<ActivityPageBody>;
export type VpnEvent = VpnActivityPage["data"][number];

/** `from` of the stats calls: now minus the window, as a UTC timestamp. */
export const fromFor = (hours: number, now = Date.now()) => new Date(now - hours * 3600_000).toISOString();

const shared = { refetchInterval: OVERVIEW_REFRESH_MS, placeholderData: keepPreviousData } as const;

/** GET /network/stats (all locations) or /network/{id}/stats since now minus `hours`. */
export function useNetworkStats(locationId: number | null, hours: number, enabled = true) {
  return useQuery({
    queryKey: ["stats", "network", locationId ?? "all", hours],
    queryFn: ({ signal }) =>
      api.get<NetworkStatsBody>(locationId === null ? "/network/stats" : `/network/${locationId}/stats`, {
        signal,
        query: { from: fromFor(hours) },
      }),
    enabled,
    ...shared,
  });
}

/** GET /network/{id}/stats/users for each location given; `combine`d into one result. */
export function useUserStats(locationIds: readonly number[], hours: number) {
  return useQueries({
    queries: locationIds.map((id) => ({
      queryKey: ["stats", "users", id, hours],
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        api.get<UserStatsBody>(`/network/${id}/stats/users`, { signal, query: { from: fromFor(hours) } }),
      ...shared,
    })),
    combine: (results) => ({
      data: results.every((r) => r.data) ? results.map((r, i) => ({ locationId: locationIds[i], stats: r.data! })) : undefined,
      isPending: results.some((r) => r.isPending),
      error: results.find((r) => r.isError)?.error ?? null,
      isFetching: results.some((r) => r.isFetching),
      refetch: () => Promise.all(results.filter((r) => r.isError).map((r) => r.refetch())),
    }),
  });
}

/** The latest VPN events (GET /activity_log?module=vpn), of one location or all. */
export function useVpnActivity(locationName: string | null, enabled = true) {
  return useQuery({
    queryKey: ["activity", "vpn", locationName ?? "all"],
    queryFn: ({ signal }) =>
      api.get<ActivityPageBody>("/activity_log", {
        signal,
        query: { module: "vpn", location: locationName ?? undefined, page_size: 20, page: 1 },
      }),
    enabled,
    ...shared,
  });
}
