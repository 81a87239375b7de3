"use client";

import { queryOptions, useQuery, type QueryClient } from "@tanstack/react-query";
import { api, type Stripped } from "@/lib/api/client";
import type { GroupInfo as GroupInfoBody } from "@/lib/groups/service";
import { currentUserQuery } from "@/components/auth/use-current-user";
import { userKeys } from "@/components/users/queries";

export type GroupInfo = Stripped<GroupInfoBody>;

/** GET /group-info: every group with its members, locations and admin flag. */
export const groupsQuery = queryOptions({
  queryKey: ["groups", "info"],
  queryFn: ({ signal }) => api.get<GroupInfoBody[]>("/group-info", { signal }),
});

export function useGroups() {
  return useQuery(groupsQuery);
}

export const groupPath = (name: string) => `/group/${encodeURIComponent(name)}`;

/** After a group change: the groups, and the users whose groups and admin rights may have moved. */
export function refreshAfterGroupChange(client: QueryClient) {
  return Promise.all([
    client.invalidateQueries({ queryKey: ["groups"] }),
    client.invalidateQueries({ queryKey: userKeys.all }),
    client.invalidateQueries({ queryKey: ["user"] }),
    client.invalidateQueries({ queryKey: currentUserQuery.queryKey }),
  ]);
}
