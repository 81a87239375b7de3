"use client";

import { useCallback, useEffect, useMemo, useState, type ReactNode } from "react";
import { useTranslations } from "next-intl";
import { X, type LucideIcon } from "lucide-react";
import { Button } from "./button";
import { ConfirmDialog } from "./confirm-dialog";
import type { RowSelection } from "./data-table";

/**
 * Selection for bulk actions, kept by the list page (not by the table), so it survives paging,
 * searching and filtering: ids picked one by one (with a label for the confirmation), or "all N
 * matching" a filter, which the server resolves when the action runs. Changing the filter drops
 * an "all matching" selection (it named the old filter's objects); picked ids stay.
 */
export interface BulkSelection<F> {
  /** Objects selected (the filter's total in "all matching" mode). */
  count: number;
  /** "All N matching" is on. */
  allMatching: boolean;
  /** What a bulk request names: {ids} or {filter}. */
  target: () => { ids: number[] } | { filter: F };
  /** Labels of the picked ids (empty in "all matching" mode). */
  labels: () => string[];
  /** The DataTable's checkboxes for the rows of the current page. */
  table: <T>(rows: T[] | undefined, id: (row: T) => number, label: (row: T) => string, names: { row: (label: string) => string; page: string }) => RowSelection<T>;
  /** Select every object matching `filter` (`total` of them). */
  selectAllMatching: (total: number) => void;
  /** Select these ids (a report section's every row). */
  selectIds: (entries: [number, string][]) => void;
  clear: () => void;
}

/**
 * `known`: every object of a list held whole in the browser (a report section); "select all"
 * then selects their ids instead of sending the filter.
 */
export function useBulkSelection<F>(filter: F, known?: [number, string][]): BulkSelection<F> {
  const filterKey = JSON.stringify(filter);
  const [ids, setIds] = useState<Map<number, string>>(() => new Map());
  const [all, setAll] = useState<{ key: string; filter: F; total: number } | null>(null);

  useEffect(() => {
    setAll((a) => (a && a.key !== filterKey ? null : a));
  }, [filterKey]);

  const clear = useCallback(() => {
    setIds(new Map());
    setAll(null);
  }, []);

  return useMemo<BulkSelection<F>>(() => {
    const allOn = all !== null && all.key === filterKey;
    return {
      count: allOn ? all.total : ids.size,
      allMatching: allOn,
      target: () => (allOn ? { filter: all.filter } : { ids: [...ids.keys()] }),
      labels: () => (allOn ? [] : [...ids.values()]),
      selectAllMatching: (total) => (known ? setIds(new Map(known)) : setAll({ key: filterKey, filter, total })),
      selectIds: (entries) => {
        setAll(null);
        setIds(new Map(entries));
      },
      clear,
      table: (rows, id, label, names) => {
        const list = rows ?? [];
        const picked = list.filter((r) => allOn || ids.has(id(r))).length;
        const page: boolean | "indeterminate" = list.length > 0 && picked === list.length ? true : picked > 0 ? "indeterminate" : false;
        return {
          isSelected: (r) => allOn || ids.has(id(r)),
          onToggle: (r) => {
            if (allOn) {
              // Leaving "all matching": keep this page's rows but the one unticked.
              setAll(null);
              setIds(new Map(list.filter((x) => id(x) !== id(r)).map((x) => [id(x), label(x)])));
              return;
            }
            setIds((m) => {
              const next = new Map(m);
              if (next.has(id(r))) next.delete(id(r));
              else next.set(id(r), label(r));
              return next;
            });
          },
          page,
          onTogglePage: () => {
            if (allOn) return clear();
            setIds((m) => {
              const next = new Map(m);
              if (page === true) for (const r of list) next.delete(id(r));
              else for (const r of list) next.set(id(r), label(r));
              return next;
            });
          },
          rowLabel: (r) => names.row(label(r)),
          pageLabel: names.page,
        };
      },
    };
  }, [ids, all, filterKey, filter, clear, known]);
}

export interface BulkAction {
  key: string;
  label: string;
  icon?: LucideIcon;
  danger?: boolean;
}

/**
 * The bar above a list while something is selected: how many, "select all N matching" (when the
 * list has more than the selection), clear, and the actions (each opens its confirmation).
 */
export function BulkBar<F>({
  selection,
  total,
  actions,
  onAction,
  testId = "bulk-bar",
}: {
  selection: BulkSelection<F>;
  /** Objects matching the list's current filter (all pages). */
  total: number | undefined;
  actions: BulkAction[];
  onAction: (key: string) => void;
  testId?: string;
}) {
  const t = useTranslations("bulk");
  if (!selection.count) return null;
  return (
    <div
      role="region"
      aria-label={t("barLabel")}
      data-testid={testId}
      className="mb-3 flex flex-wrap items-center gap-2 rounded-md border border-accent/40 bg-accent/5 px-3 py-2 text-sm"
    >
      <span className="font-medium text-fg" data-testid="bulk-count">
        {selection.allMatching ? t("allMatching", { count: selection.count }) : t("selected", { count: selection.count })}
      </span>
      {!selection.allMatching && total !== undefined && total > selection.count && (
        <Button variant="ghost" size="sm" className="text-accent" onClick={() => selection.selectAllMatching(total)} data-testid="bulk-select-all">
          {t("selectAll", { count: total })}
        </Button>
      )}
      <Button variant="ghost" size="sm" onClick={selection.clear} data-testid="bulk-clear">
        <X aria-hidden />
        {t("clear")}
      </Button>
      <div className="ml-auto flex flex-wrap gap-2">
        {actions.map((a) => {
          const Icon = a.icon;
          return (
            <Button key={a.key} size="sm" variant={a.danger ? "danger" : "secondary"} onClick={() => onAction(a.key)} data-testid={`bulk-${a.key}`}>
              {Icon && <Icon aria-hidden />}
              {a.label}
            </Button>
          );
        })}
      </div>
    </div>
  );
}

/** The one confirmation of a bulk action: what it does to how many (naming the first few), and its choices. */
export function BulkConfirm({
  open,
  onOpenChange,
  title,
  description,
  names,
  confirmLabel,
  danger,
  confirmDisabled,
  onConfirm,
  children,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: string;
  /** The first selected objects by name (none in "all matching" mode). */
  names: string[];
  confirmLabel: string;
  danger?: boolean;
  confirmDisabled?: boolean;
  onConfirm: () => Promise<unknown>;
  children?: ReactNode;
}) {
  const t = useTranslations("bulk");
  const shown = names.slice(0, 8);
  return (
    <ConfirmDialog
      open={open}
      onOpenChange={onOpenChange}
      title={title}
      description={description}
      confirmLabel={confirmLabel}
      danger={danger}
      confirmDisabled={confirmDisabled}
      onConfirm={onConfirm}
    >
      {shown.length > 0 && (
        <p className="text-sm text-fg-muted" data-testid="bulk-names">
          {shown.join(", ")}
          {names.length > shown.length && ` ${t("andMore", { count: names.length - shown.length })}`}
        </p>
      )}
      {children}
    </ConfirmDialog>
  );
}
