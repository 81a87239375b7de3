"use client";

import type { HTMLAttributes, ReactNode, Ref } from "react";
import { MoreHorizontal, type LucideIcon } from "lucide-react";
import { Button } from "./button";
import { Checkbox } from "./checkbox";
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuSeparator, DropdownMenuTrigger } from "./dropdown-menu";
import { ListStates, useRowConfirm, type ListEmpty, type ListError, type RowConfirm } from "./list-states";
import { Table, TableBody, TableCell, TableContainer, TableHead, TableHeader, TableMessageRow, TableRow, TableSkeletonRows, type SortDirection } from "./table";

export interface DataColumn<T, K extends string = string> {
  /** Header text (an actions-free column may still say what it holds to screen readers). */
  header: ReactNode;
  cell: (row: T) => ReactNode;
  /** Classes of both header and cells (e.g. "hidden md:table-cell" to drop it on small screens). */
  className?: string;
  cellClassName?: string;
  /** Width class of this column's skeleton while loading. */
  skeleton: string;
  /** The sort key this column's header sets; sortable columns need the table's `sort`. */
  sortKey?: K;
  /** Rows this row's cell spans (0: covered by a cell above, not rendered); default 1. */
  rowSpan?: (row: T) => number;
}

export type { RowConfirm };

export interface RowAction {
  label: ReactNode;
  icon?: LucideIcon;
  danger?: boolean;
  /** A line above this item. */
  separated?: boolean;
  disabled?: boolean;
  testId?: string;
  /** Either an immediate action, or one that asks first. */
  onSelect?: () => void;
  confirm?: RowConfirm;
}

/** A list's row actions: the menu's accessible name per row and its items. */
export interface RowActions<T> {
  label: (row: T) => string;
  items: (row: T) => RowAction[];
  /** A row's action still running: the menu button shows progress. */
  busy?: (row: T) => boolean;
  testId?: string | ((row: T) => string);
}

/**
 * Row selection for bulk actions (components/ui/bulk-selection.tsx): a checkbox first in every
 * row, and one in the header for the rows of this page.
 */
export interface RowSelection<T> {
  isSelected: (row: T) => boolean;
  onToggle: (row: T) => void;
  /** The header checkbox: every row of the page selected, some, or none. */
  page: boolean | "indeterminate";
  onTogglePage: () => void;
  /** Accessible names: "Select jdoe", "Select every row of this page". */
  rowLabel: (row: T) => string;
  pageLabel: string;
}

interface DataTableProps<T, K extends string> {
  columns: DataColumn<T, K>[];
  /** Rows of the current page; undefined while the first load runs. */
  rows: T[] | undefined;
  rowKey: (row: T) => string | number;
  /** When the load failed: the sentence, the server's detail and a retry. */
  error?: ListError | null;
  empty: ListEmpty;
  /** Server- or client-side sort: the current key and direction, and what a header click does. */
  sort?: { key: K; dir: SortDirection; onSort: (key: K) => void };
  /** Row actions menu (last column): its accessible name per row and the items. */
  actions?: RowActions<T> & { columnLabel: string };
  rowProps?: (row: T) => HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, string | undefined>;
  skeletonRows?: number;
  /** Under the table (pagination, counts). */
  footer?: ReactNode;
  /** Shown at full width above the rows (e.g. the number of results of a search). */
  className?: string;
  /** Classes of the body (e.g. dimmed while a new page loads). */
  bodyClassName?: string;
  /** The scrolling container (a new page scrolls back to its top). */
  containerRef?: Ref<HTMLDivElement>;
  testId?: string;
  /** Checkboxes for bulk actions. */
  selection?: RowSelection<T>;
}

/**
 * The console's list table: column definitions, sortable headers, skeleton rows while loading,
 * an inline error with retry, an empty state, and a row actions menu whose destructive items ask
 * in a confirm dialog. Sorting, search and paging are the caller's (server or client side).
 */
export function DataTable<T, K extends string = string>({
  columns,
  rows,
  rowKey,
  error,
  empty,
  sort,
  actions,
  rowProps,
  skeletonRows = 6,
  footer,
  className,
  bodyClassName,
  containerRef,
  testId,
  selection,
}: DataTableProps<T, K>) {
  const confirm = useRowConfirm();
  const span = columns.length + (actions ? 1 : 0) + (selection ? 1 : 0);
  const skeleton = [
    ...(selection ? [{ width: "w-4" }] : []),
    ...columns.map((c) => ({ width: c.skeleton, className: c.className })),
    ...(actions ? [{ width: "w-6" }] : []),
  ];

  return (
    <>
      <TableContainer ref={containerRef} className={className} data-testid={testId}>
        <Table>
          <TableHeader>
            <tr>
              {selection && (
                <TableHead className="w-10 pr-0">
                  <Checkbox
                    checked={selection.page}
                    onCheckedChange={() => selection.onTogglePage()}
                    aria-label={selection.pageLabel}
                    data-testid="select-page"
                  />
                </TableHead>
              )}
              {columns.map((c, i) => (
                <TableHead
                  key={i}
                  className={c.className}
                  sort={sort && c.sortKey ? (sort.key === c.sortKey ? sort.dir : false) : undefined}
                  onSort={sort && c.sortKey ? () => sort.onSort(c.sortKey!) : undefined}
                >
                  {c.header}
                </TableHead>
              ))}
              {actions && (
                <TableHead className="w-10">
                  <span className="sr-only">{actions.columnLabel}</span>
                </TableHead>
              )}
            </tr>
          </TableHeader>
          <TableBody className={bodyClassName}>
            <ListStates
              rows={rows}
              error={error}
              empty={empty}
              loading={<TableSkeletonRows rows={skeletonRows} columns={skeleton} />}
              message={(node) => <TableMessageRow colSpan={span}>{node}</TableMessageRow>}
            >
              {(list) =>
                list.map((row) => (
                  <TableRow key={rowKey(row)} {...rowProps?.(row)} data-selected={selection ? String(selection.isSelected(row)) : undefined}>
                    {selection && (
                      <TableCell className="w-10 pr-0">
                        <Checkbox
                          checked={selection.isSelected(row)}
                          onCheckedChange={() => selection.onToggle(row)}
                          aria-label={selection.rowLabel(row)}
                          data-testid="select-row"
                        />
                      </TableCell>
                    )}
                    {columns.map((c, i) => {
                      const rowSpan = c.rowSpan ? c.rowSpan(row) : 1;
                      if (rowSpan === 0) return null;
                      return (
                        <TableCell
                          key={i}
                          rowSpan={rowSpan === 1 ? undefined : rowSpan}
                          className={[c.className, c.cellClassName].filter(Boolean).join(" ") || undefined}
                        >
                          {c.cell(row)}
                        </TableCell>
                      );
                    })}
                    {actions && (
                      <TableCell className="w-10 pr-2 text-right" onClick={(e) => e.stopPropagation()}>
                        <RowMenu actions={actions} row={row} onConfirm={confirm.ask} />
                      </TableCell>
                    )}
                  </TableRow>
                ))
              }
            </ListStates>
          </TableBody>
        </Table>
      </TableContainer>
      {footer}
      {confirm.dialog}
    </>
  );
}

/** The row actions menu of one row of a list. */
export function RowMenu<T>({ actions, row, onConfirm }: { actions: RowActions<T>; row: T; onConfirm: (c: RowConfirm) => void }) {
  return (
    <RowActionsMenu
      label={actions.label(row)}
      items={actions.items(row)}
      onConfirm={onConfirm}
      busy={actions.busy?.(row)}
      testId={typeof actions.testId === "function" ? actions.testId(row) : actions.testId}
    />
  );
}

/** The "⋯" menu of a row; items with `confirm` open the table's confirm dialog. */
export function RowActionsMenu({
  label,
  items,
  onConfirm,
  busy,
  testId,
}: {
  label: string;
  items: RowAction[];
  onConfirm: (c: RowConfirm) => void;
  busy?: boolean;
  testId?: string;
}) {
  return (
    <DropdownMenu>
      <DropdownMenuTrigger asChild>
        <Button variant="ghost" size="icon" aria-label={label} loading={busy} data-testid={testId}>
          <MoreHorizontal aria-hidden />
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent align="end">
        {items.map((a, i) => (
          <RowActionItem key={i} action={a} onConfirm={onConfirm} />
        ))}
      </DropdownMenuContent>
    </DropdownMenu>
  );
}

function RowActionItem({ action: a, onConfirm }: { action: RowAction; onConfirm: (c: RowConfirm) => void }) {
  const Icon = a.icon;
  return (
    <>
      {a.separated && <DropdownMenuSeparator />}
      <DropdownMenuItem
        danger={a.danger}
        disabled={a.disabled}
        data-testid={a.testId}
        onSelect={() => (a.confirm ? onConfirm(a.confirm) : a.onSelect?.())}
      >
        {Icon && <Icon aria-hidden />}
        {a.label}
      </DropdownMenuItem>
    </>
  );
}
