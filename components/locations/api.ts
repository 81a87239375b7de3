"use client";

import { queryOptions, useQuery } from "@tanstack/react-query";
import { api, type Stripped } from "@/lib/api/client";
import type { listGroupInfo } from "@/lib/groups/service";
import type { importLocation } from "@/lib/locations/import";
import type { listLocations } from "@/lib/locations/service";

/** GET /network item (docs/api.md location response; the private key is never part of it). */
export type LocationBody = Awaited<ReturnType<typeof listLocations>>[number];
export type Location = Stripped<LocationBody>;
export type MfaMode = (typeof MFA_MODES)[number];

/** The MFA mode of a location as one of the known modes ("disabled" for anything else). */
export function mfaModeOf(l: Pick<Location, "location_mfa_mode">): MfaMode {
  return (MFA_MODES as readonly string[]).includes(l.location_mfa_mode) ? (l.location_mfa_mode as MfaMode) : "disabled";
}

/** POST /network/import: the new location and the peers found in the file. */
export type ImportResultBody = Awaited<ReturnType<typeof importLocation>>;
export type ImportResult = Stripped<ImportResultBody>;
export type ImportedPeer = ImportResult["devices"][number];

export type GroupInfoBody = Awaited<ReturnType<typeof listGroupInfo>>[number];

export const MFA_MODES = ["disabled", "internal", "external"] as const;

export const locationKeys = {
  all: ["locations"] as const,
  one: (id: number) => ["locations", id] as const,
};

export const locationsQuery = queryOptions({
  queryKey: locationKeys.all,
  queryFn: ({ signal }) => api.get<LocationBody[]>("/network", { signal }),
});

export function useLocations(enabled = true) {
  return useQuery({ ...locationsQuery, enabled });
}

export function useLocation(id: number) {
  return useQuery({
    queryKey: locationKeys.one(id),
    queryFn: ({ signal }) => api.get<LocationBody>(`/network/${id}`, { signal }),
  });
}

/** Every group (GET /group-info), for the allowed-groups picker. */
export const groupInfoQuery = queryOptions({
  queryKey: ["groups", "info"],
  queryFn: ({ signal }) => api.get<GroupInfoBody[]>("/group-info", { signal }),
});

export function useGroupInfo() {
  return useQuery(groupInfoQuery);
}
