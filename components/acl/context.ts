"use client";

import { useMemo } from "react";
import { useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api/client";
import type { UserInfoBody } from "@/lib/api/types";
import { useNetworkDevices } from "@/components/devices/api";
import { useGroups } from "@/components/groups/queries";
import { useLocations } from "@/components/locations/api";
import { useAliases, type AclAlias } from "./api";

export interface Named {
  id: number;
  name: string;
  /** A second line in pickers (a user's full name, a device's location). */
  detail?: string;
}

/** GET /user (the plain list): every user, for names of ids and the users pickers. */
export function useAllUsers() {
  return useQuery({
    queryKey: ["users", "all"],
    queryFn: ({ signal }) => api.get<UserInfoBody[]>("/user", { signal }),
    staleTime: 30_000,
  });
}

/**
 * Everything a rule refers to by id: locations, users, groups, network devices and aliases,
 * as lists (for pickers) and maps (for names in tables).
 */
export function useAclContext() {
  const locations = useLocations();
  const users = useAllUsers();
  const groups = useGroups();
  const devices = useNetworkDevices();
  const aliases = useAliases();

  return useMemo(() => {
    const lists = {
      locations: (locations.data ?? []).map((l): Named & { aclEnabled: boolean; defaultAllow: boolean } => ({
        id: l.id,
        name: l.name,
        aclEnabled: !!l.acl_enabled,
        defaultAllow: !!l.acl_default_allow,
      })),
      users: (users.data ?? []).map((u): Named => {
        const full = [u.first_name, u.last_name].filter(Boolean).join(" ");
        return { id: u.id, name: u.username, detail: full && full !== u.username ? full : u.email };
      }),
      groups: (groups.data ?? []).map((g): Named => ({ id: g.id, name: g.name })),
      devices: (devices.data ?? []).map((d): Named => ({ id: d.id, name: d.name, detail: d.location?.name })),
      aliases: (aliases.data ?? []) as AclAlias[],
    };
    const byId = <T extends { id: number }>(xs: T[]) => new Map(xs.map((x) => [x.id, x]));
    const maps = {
      locations: byId(lists.locations),
      users: byId(lists.users),
      groups: byId(lists.groups),
      devices: byId(lists.devices),
      aliases: byId(lists.aliases),
    };
    const queries = [locations, users, groups, devices, aliases];
    return {
      ...lists,
      maps,
      ready: queries.every((q) => q.isSuccess),
      isError: queries.some((q) => q.isError),
      error: queries.find((q) => q.isError)?.error ?? null,
      retry: () => queries.filter((q) => q.isError).forEach((q) => void q.refetch()),
    };
  }, [locations, users, groups, devices, aliases]);
}

export type AclContext = ReturnType<typeof useAclContext>;
