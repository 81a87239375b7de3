import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api/client";
import type { UserPageBody } from "@/lib/api/types";

/** The number of user accounts: one one-row page of GET /user, whose pagination carries the total. */
export const userCountQuery = queryOptions({
  queryKey: ["users", "count"],
  queryFn: async () => (await api.get<UserPageBody>("/user", { query: { page: 1, page_size: 1 } })).pagination.total_items,
});

export function useUserCount() {
  return useQuery(userCountQuery);
}
