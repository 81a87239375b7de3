"use client";

import {
  forwardRef,
  type HTMLAttributes,
  type ReactNode,
  type TdHTMLAttributes,
  type ThHTMLAttributes,
} from "react";
import { ArrowDown, ArrowUp, ChevronsUpDown } from "lucide-react";
import { cn } from "./cn";
import { Skeleton } from "./skeleton";

/**
 * Data tables (docs/ui.md): a bordered scroll container whose header row stays in view. Give the
 * container a max height (className) for the header to stick while its body scrolls; lists
 * with more than a few hundred rows page on the server instead of rendering everything.
 */
export const TableContainer = forwardRef<HTMLDivElement, HTMLAttributes<HTMLDivElement>>(function TableContainer(
  { className, ...props },
  ref,
) {
  return (
    <div
      ref={ref}
      className={cn("relative w-full overflow-auto rounded-lg border border-border bg-surface", className)}
      {...props}
    />
  );
});

export const Table = forwardRef<HTMLTableElement, HTMLAttributes<HTMLTableElement>>(function Table(
  { className, ...props },
  ref,
) {
  // border-separate keeps the sticky header's bottom border (collapsed borders scroll away).
  return <table ref={ref} className={cn("w-full border-separate border-spacing-0 text-sm", className)} {...props} />;
});

export function TableHeader({ className, ...props }: HTMLAttributes<HTMLTableSectionElement>) {
  return <thead className={cn("sticky top-0 z-10 bg-subtle", className)} {...props} />;
}

export function TableBody({ className, ...props }: HTMLAttributes<HTMLTableSectionElement>) {
  return <tbody className={cn("[&>tr:last-child>td]:border-b-0", className)} {...props} />;
}

export function TableRow({ className, ...props }: HTMLAttributes<HTMLTableRowElement>) {
  return (
    <tr
      className={cn("transition-colors hover:bg-hover/60 data-[state=selected]:bg-accent-subtle/60", className)}
      {...props}
    />
  );
}

export type SortDirection = "asc" | "desc";

interface TableHeadProps extends ThHTMLAttributes<HTMLTableCellElement> {
  /** Current sort of this column: a direction, or false when the table is sorted by another column. */
  sort?: SortDirection | false;
  /** Makes the header a button that changes the sort. */
  onSort?: () => void;
}

export function TableHead({ className, sort, onSort, children, ...props }: TableHeadProps) {
  const sortable = onSort !== undefined;
  const Icon = sort === "asc" ? ArrowUp : sort === "desc" ? ArrowDown : ChevronsUpDown;
  return (
    <th
      scope="col"
      aria-sort={sortable ? (sort === "asc" ? "ascending" : sort === "desc" ? "descending" : "none") : undefined}
      className={cn(
        "h-9 whitespace-nowrap border-b border-border px-3 text-left align-middle text-xs font-medium text-fg-muted",
        className,
      )}
      {...props}
    >
      {sortable ? (
        <button
          type="button"
          onClick={onSort}
          className={cn(
            "-mx-1 inline-flex items-center gap-1 rounded-sm px-1 py-0.5 hover:text-fg focus-visible:outline-2",
            sort && "text-fg",
          )}
        >
          {children}
          <Icon className={cn("size-3.5", !sort && "text-fg-subtle")} aria-hidden />
        </button>
      ) : (
        children
      )}
    </th>
  );
}

export function TableCell({ className, ...props }: TdHTMLAttributes<HTMLTableCellElement>) {
  return <td className={cn("h-12 border-b border-border px-3 align-middle text-fg", className)} {...props} />;
}

interface TableSkeletonRowsProps {
  rows?: number;
  /** One entry per column: the skeleton's width class, or a cell class pair for hidden columns. */
  columns: { width: string; className?: string }[];
}

/** Placeholder rows with the table's column layout while the first page loads. */
export function TableSkeletonRows({ rows = 8, columns }: TableSkeletonRowsProps) {
  return (
    <>
      {Array.from({ length: rows }, (_, r) => (
        <tr key={r} aria-hidden data-testid="table-skeleton-row">
          {columns.map((c, i) => (
            <td key={i} className={cn("h-12 border-b border-border px-3", c.className)}>
              <Skeleton className={cn("h-4", c.width)} />
            </td>
          ))}
        </tr>
      ))}
    </>
  );
}

/** A full-width cell for the empty state or an inline error inside the table. */
export function TableMessageRow({ colSpan, children }: { colSpan: number; children: ReactNode }) {
  return (
    <tr>
      <td colSpan={colSpan} className="p-0">
        {children}
      </td>
    </tr>
  );
}
