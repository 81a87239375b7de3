"use client";

import { ChevronLeft, ChevronRight } from "lucide-react";
import { Button } from "./button";
import { cn } from "./cn";
import { pageWindow } from "./page-window";
import { Spinner } from "./spinner";

export { pageWindow };

export interface PaginationLabels {
  /** The navigation landmark, e.g. "Pages". */
  nav: string;
  previous: string;
  next: string;
  /** Accessible name of a page button, e.g. "Page 3". */
  page: (page: number) => string;
  /** "1–50 of 10,000" (already formatted for the user's language). */
  summary: (from: number, to: number, total: number) => string;
  /** "Page 3 of 200" for narrow screens. */
  position: (page: number, pageCount: number) => string;
}

interface PaginationProps {
  page: number;
  pageCount: number;
  total: number;
  pageSize: number;
  onPageChange: (page: number) => void;
  labels: PaginationLabels;
  /** A newer page is loading (the current rows stay visible meanwhile). */
  busy?: boolean;
  className?: string;
}

/** Server-side paging: "1–50 of 10,000", previous/next and a window of page numbers. */
export function Pagination({ page, pageCount, total, pageSize, onPageChange, labels, busy, className }: PaginationProps) {
  const from = total === 0 ? 0 : (page - 1) * pageSize + 1;
  const to = Math.min(total, page * pageSize);
  return (
    <nav
      aria-label={labels.nav}
      data-testid="pagination"
      className={cn("flex flex-wrap items-center justify-between gap-x-4 gap-y-2 text-sm", className)}
    >
      <p className="flex items-center gap-2 text-fg-muted tabular-nums" aria-live="polite">
        {labels.summary(from, to, total)}
        {busy && <Spinner size={14} className="text-fg-subtle" />}
      </p>
      {pageCount > 1 && (
        <div className="flex items-center gap-1">
          <Button
            variant="ghost"
            size="icon"
            aria-label={labels.previous}
            disabled={page <= 1}
            onClick={() => onPageChange(page - 1)}
          >
            <ChevronLeft aria-hidden />
          </Button>
          <span className="px-2 text-fg-muted tabular-nums sm:hidden">{labels.position(page, pageCount)}</span>
          <ul className="hidden items-center gap-1 sm:flex">
            {pageWindow(page, pageCount).map((p, i) =>
              p === null ? (
                <li key={`gap-${i}`} aria-hidden className="w-6 text-center text-fg-subtle">
                  …
                </li>
              ) : (
                <li key={p}>
                  <Button
                    variant={p === page ? "secondary" : "ghost"}
                    size="sm"
                    aria-label={labels.page(p)}
                    aria-current={p === page ? "page" : undefined}
                    onClick={() => p !== page && onPageChange(p)}
                    className={cn("h-8 min-w-8 px-2 tabular-nums", p === page && "text-fg")}
                  >
                    {p}
                  </Button>
                </li>
              ),
            )}
          </ul>
          <Button
            variant="ghost"
            size="icon"
            aria-label={labels.next}
            disabled={page >= pageCount}
            onClick={() => onPageChange(page + 1)}
          >
            <ChevronRight aria-hidden />
          </Button>
        </div>
      )}
    </nav>
  );
}
