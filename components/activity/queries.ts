"use client";

import { keepPreviousData, queryOptions, useQuery } from "@tanstack/react-query";
import { api, type Stripped } from "@/lib/api/client";
import type { activityFilterValues, listActivity } from "@/lib/activity/service";

export type ActivityPageBody = Awaited<ReturnType<typeof listActivity>>;
export type ActivityPage = Stripped<ActivityPageBody>;
export type ActivityEvent = ActivityPage["data"][number];
export type ActivityFilters = Stripped<Awaited<ReturnType<typeof activityFilterValues>>>;

export const ACTIVITY_PAGE_SIZE = 50;

export interface ActivityParams {
  search: string;
  usernames: string[];
  events: string[];
  modules: string[];
  locations: string[];
  from?: string;
  until?: string;
  page: number;
}

/** GET /activity_log: one page, newest first; admins get everyone's events, others their own. */
export function useActivity(p: ActivityParams) {
  return useQuery({
    queryKey: ["activity", "page", p],
    queryFn: ({ signal }) =>
      api.get<ActivityPageBody>("/activity_log", {
        signal,
        query: {
          page: p.page,
          page_size: ACTIVITY_PAGE_SIZE,
          search: p.search || undefined,
          username: p.usernames,
          event: p.events,
          module: p.modules,
          location: p.locations,
          from: p.from,
          until: p.until,
        },
      }),
    placeholderData: keepPreviousData,
  });
}

export const activityFiltersQuery = queryOptions({
  queryKey: ["activity", "filters"],
  queryFn: ({ signal }) => api.get<Awaited<ReturnType<typeof activityFilterValues>>>("/activity_log/filters", { signal }),
});

export function useActivityFilters() {
  return useQuery(activityFiltersQuery);
}
