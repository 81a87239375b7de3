"use client";

import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import { api, type Stripped } from "@/lib/api/client";
import type { UserInfo, UserPageBody } from "@/lib/api/types";
import type { getUserDetails } from "@/lib/users/service";

export type UsersFilter = "all" | "admins" | "users";
export type UsersSort = "username" | "-username" | "name" | "-name";
export const USERS_PAGE_SIZE = 50;

export type UserPage = Stripped<UserPageBody>;
export type UserDetailsBody = Awaited<ReturnType<typeof getUserDetails>>;
export type UserDetails = Stripped<UserDetailsBody>;

/**
 * Query keys. Everything about users sits under "users" so one invalidation after a change
 * refreshes the list, the counts (overview) and the searches; one user's details under "user".
 */
export const userKeys = {
  all: ["users"] as const,
  page: (p: { search: string; filter: UsersFilter; page: number; sort: UsersSort }) => ["users", "page", p] as const,
  search: (q: string) => ["users", "search", q] as const,
  details: (username: string) => ["user", username] as const,
};

interface PageParams {
  search: string;
  filter: UsersFilter;
  page: number;
  sort: UsersSort;
}

/** One page of GET /user (server-side search, filter and sort; fast with 10,000 users). */
export function usersPageQuery(p: PageParams) {
  return queryOptions({
    queryKey: userKeys.page(p),
    queryFn: ({ signal }) =>
      api.get<UserPageBody>("/user", {
        signal,
        query: {
          page: p.page,
          page_size: USERS_PAGE_SIZE,
          search: p.search || undefined,
          filter: p.filter === "all" ? undefined : p.filter,
          sort: p.sort,
        },
      }),
  });
}

export function useUsersPage(p: PageParams) {
  // Keep showing the previous page while the next one loads (no flash of skeletons).
  return useQuery({ ...usersPageQuery(p), placeholderData: keepPreviousData });
}

/** The first matches of a user search, for pickers (group members). */
export function useUserSearch(search: string, enabled = true) {
  return useQuery({
    queryKey: userKeys.search(search),
    queryFn: ({ signal }) =>
      api.get<UserPageBody>("/user", { signal, query: { page: 1, page_size: 20, search: search || undefined, sort: "username" } }),
    placeholderData: keepPreviousData,
    enabled,
  });
}

export function userDetailsQuery(username: string) {
  return queryOptions({
    queryKey: userKeys.details(username),
    queryFn: ({ signal }) => api.get<UserDetailsBody>(`/user/${encodeURIComponent(username)}`, { signal }),
  });
}

export function useUserDetails(username: string, enabled = true) {
  return useQuery({ ...userDetailsQuery(username), enabled });
}

/** Names of every group (GET /group), for the groups picker of a profile. */
export const groupNamesQuery = queryOptions({
  queryKey: ["groups", "names"],
  queryFn: async () => (await api.get<{ groups: string[] }>("/group")).groups,
});

/** The PUT /user/{username} body that keeps everything of `user` except the given changes. */
export function userUpdateBody(user: UserInfo, changes: Partial<{ username: string; is_active: boolean }> = {}) {
  return {
    username: user.username,
    first_name: user.first_name,
    last_name: user.last_name,
    email: user.email,
    phone: user.phone ?? null,
    ...changes,
  };
}

export const userPath = (username: string) => `/user/${encodeURIComponent(username)}`;
