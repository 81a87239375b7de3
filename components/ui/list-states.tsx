"use client";

import { useState, type ReactNode } from "react";
import type { LucideIcon } from "lucide-react";
import { ConfirmDialog } from "./confirm-dialog";
import { EmptyState } from "./empty-state";
import { InlineError } from "./inline-error";

/** A list's failed load: the sentence, the server's detail and a retry. */
export interface ListError {
  message: string;
  detail?: string;
  onRetry: () => void;
  retrying?: boolean;
}

/** What an empty list says (and offers). */
export interface ListEmpty {
  icon: LucideIcon;
  title: string;
  description?: string;
  action?: ReactNode;
}

interface ListStatesProps<T> {
  /** The rows; undefined while the first load runs. */
  rows: T[] | undefined;
  error?: ListError | null;
  empty: ListEmpty;
  /** The placeholder while loading (skeleton rows or cards). */
  loading: ReactNode;
  /** Wraps the error and the empty state (e.g. in a full-width table row). */
  message?: (node: ReactNode) => ReactNode;
  children: (rows: T[]) => ReactNode;
}

/**
 * The states every list of the console goes through, in one order: a failed load (inline error
 * with retry), the first load (placeholder), no rows (empty state), then the rows. The data table
 * and the card lists render their rows through it.
 */
export function ListStates<T>({ rows, error, empty, loading, message = (n) => n, children }: ListStatesProps<T>) {
  if (error) {
    return message(<InlineError className="m-4" message={error.message} detail={error.detail} onRetry={error.onRetry} retrying={error.retrying} />);
  }
  if (rows === undefined) return loading;
  if (rows.length === 0) {
    return message(<EmptyState icon={empty.icon} title={empty.title} description={empty.description} action={empty.action} />);
  }
  return children(rows);
}

export interface RowConfirm {
  title: ReactNode;
  description: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  /** The action; the dialog shows progress and stays open when it throws. */
  run: () => unknown;
}

/** One confirm dialog for a list's rows: `ask` opens it for a row's action, `dialog` renders it. */
export function useRowConfirm() {
  const [confirming, setConfirming] = useState<RowConfirm | null>(null);
  const dialog = (
    <ConfirmDialog
      open={!!confirming}
      onOpenChange={(o) => !o && setConfirming(null)}
      title={confirming?.title ?? ""}
      description={confirming?.description ?? ""}
      confirmLabel={confirming?.confirmLabel ?? ""}
      danger={confirming?.danger ?? true}
      onConfirm={() => confirming?.run()}
    />
  );
  return { ask: setConfirming, dialog };
}
