"use client";

import { useEffect, useRef, useState } from "react";
import type { UseQueryResult } from "@tanstack/react-query";
import { InlineError } from "./inline-error";
import { Pagination, type PaginationLabels } from "./pagination";
import { useDebouncedValue } from "./use-debounced-value";

type SetParams = (patch: Record<string, string | number | null>) => void;
interface PageInfo {
  total_pages: number;
  total_items: number;
}

/** The search box's text of a server-paged list: the address's `q` follows it once typing settles. */
export function useSearchText(q: string, set: SetParams) {
  const [text, setText] = useState(q);
  const debounced = useDebouncedValue(text.trim(), 250);
  useEffect(() => {
    if (debounced !== q) set({ q: debounced, page: null });
    // Only when the typed text settles.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [debounced]);
  return [text, setText] as const;
}

/**
 * A server-paged list's page: a page that no longer exists (after deletions or a narrower search)
 * goes to the last one, and a new page starts at its first row (the returned ref is the scroller's).
 */
export function usePageBounds(page: number, pagination: PageInfo | undefined, set: SetParams) {
  const scroller = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (pagination && page > pagination.total_pages) set({ page: pagination.total_pages > 1 ? pagination.total_pages : null });
  }, [pagination, page, set]);
  useEffect(() => {
    scroller.current?.scrollTo({ top: 0 });
  }, [page]);
  return scroller;
}

/** Under a server-paged table: a failed refresh (the old rows stay) and the pager. */
export function ServerPagingFooter({
  query,
  pagination,
  page,
  pageSize,
  set,
  labels,
  loadFailed,
}: {
  query: Pick<UseQueryResult, "isError" | "error" | "refetch" | "isFetching" | "isPlaceholderData">;
  pagination: PageInfo | undefined;
  page: number;
  pageSize: number;
  set: SetParams;
  labels: PaginationLabels;
  loadFailed: string;
}) {
  return (
    <>
      {query.isError && (
        <InlineError
          className="mt-3"
          message={loadFailed}
          detail={query.error?.message}
          onRetry={() => query.refetch()}
          retrying={query.isFetching}
        />
      )}
      {pagination && pagination.total_items > 0 && (
        <Pagination
          className="mt-3"
          page={Math.min(page, pagination.total_pages)}
          pageCount={pagination.total_pages}
          total={pagination.total_items}
          pageSize={pageSize}
          onPageChange={(p) => set({ page: p === 1 ? null : p })}
          labels={labels}
          busy={query.isFetching && query.isPlaceholderData}
        />
      )}
    </>
  );
}
