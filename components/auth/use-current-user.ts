import { queryOptions, useQuery } from "@tanstack/react-query";
import { api } from "@/lib/api/client";
import type { UserInfoBody } from "@/lib/api/types";

/** The current user is fetched once, without retry and without refetch on focus. */
export const currentUserQuery = queryOptions({
  queryKey: ["me"],
  queryFn: () => api.get<UserInfoBody>("/me"),
  retry: false,
  refetchOnWindowFocus: false,
});

export function useCurrentUser() {
  return useQuery(currentUserQuery);
}
