"use client";

import { queryOptions, useQuery } from "@tanstack/react-query";
import { api, type Stripped } from "@/lib/api/client";
import type { toGatewayState, tokenFor } from "@/lib/gateways/service";
import type { locationGatewaysWithSync, locationSyncOverview } from "@/lib/gateways/sync";

/** GatewayState of docs/api.md (GET /network/gateways, GET /network/{id}/gateways). */
export type GatewayStateBody = ReturnType<typeof toGatewayState>;
export type GatewayState = Stripped<GatewayStateBody>;

/** GET /network/{id}/token: the gateway's JWT and the console's gRPC address. */
export type GatewayTokenBody = Awaited<ReturnType<typeof tokenFor>>;

/** All / some / none of a location's gateways connected, or the check failed. */
export type GatewayStatus = "all" | "some" | "none" | "failed";

export function gatewayStatus(list: readonly Pick<GatewayState, "connected">[] | undefined, failed = false): GatewayStatus {
  if (failed || !list) return "failed";
  const up = list.filter((g) => g.connected).length;
  if (up === 0) return "none";
  return up === list.length ? "all" : "some";
}

export const gatewayKeys = {
  all: ["gateways"] as const,
  byLocation: ["gateways", "by-location"] as const,
  location: (id: number) => ["gateways", "location", id] as const,
  token: (id: number) => ["gateways", "token", id] as const,
};

/** Overview and setup pages keep gateway states fresh on this period (ms). */
export const GATEWAY_REFRESH_MS = 30_000;

/** GET /network/{id}/gateways: GatewayState with the revision and drift fields. */
export type LocationGatewayBody = Awaited<ReturnType<typeof locationGatewaysWithSync>>[number];
export type LocationGateway = Stripped<LocationGatewayBody>;

/** GET /network/{id}/gateways/sync: drift repair and alert settings, the hour's propagation. */
export type SyncOverviewBody = Awaited<ReturnType<typeof locationSyncOverview>>;

export const syncKeys = { location: (id: number) => ["gateways", "sync", id] as const };

export function useSyncOverview(id: number) {
  return useQuery({
    queryKey: syncKeys.location(id),
    queryFn: ({ signal }) => api.get<SyncOverviewBody>(`/network/${id}/gateways/sync`, { signal }),
    refetchInterval: GATEWAY_REFRESH_MS,
  });
}

export function useLocationGateways(id: number) {
  return useQuery({
    queryKey: gatewayKeys.location(id),
    queryFn: ({ signal }) => api.get<LocationGatewayBody[]>(`/network/${id}/gateways`, { signal }),
    refetchInterval: GATEWAY_REFRESH_MS,
    // The status button is the explicit check; a failed check must say so at once.
    retry: false,
  });
}

/** GET /network/gateways: {"<location id>": [GatewayState]} (locations without gateways are absent). */
export const allGatewaysQuery = queryOptions({
  queryKey: gatewayKeys.byLocation,
  queryFn: ({ signal }) => api.get<Record<string, GatewayStateBody[]>>("/network/gateways", { signal }),
  refetchInterval: GATEWAY_REFRESH_MS,
});

export function useAllGateways(enabled = true) {
  return useQuery({ ...allGatewaysQuery, enabled });
}

export function useGatewayToken(id: number) {
  return useQuery({
    queryKey: gatewayKeys.token(id),
    queryFn: ({ signal }) => api.get<GatewayTokenBody>(`/network/${id}/token`, { signal }),
    // A token is minted per request; keep the one shown stable while the page is open.
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });
}
