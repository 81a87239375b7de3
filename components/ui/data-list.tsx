"use client";

import { Fragment, type ReactNode } from "react";
import { RowMenu, type RowActions } from "./data-table";
import { ListStates, useRowConfirm, type ListEmpty, type ListError } from "./list-states";

interface DataListProps<T> {
  /** The rows; undefined while the first load runs. */
  rows: T[] | undefined;
  rowKey: (row: T) => string | number;
  error?: ListError | null;
  empty: ListEmpty;
  /** The placeholder while loading. */
  loading: ReactNode;
  /** One row (an `<li>`); `menu` is its row actions menu, for the row to place. */
  item: (row: T, menu: ReactNode) => ReactNode;
  /** Row actions, as in the data table: destructive items ask in the list's confirm dialog. */
  actions?: RowActions<T>;
  /** Classes of the `<ul>`. */
  className?: string;
}

/**
 * The data table's states and row actions for a list whose rows are cards rather than table rows
 * (a row holding a table of its own, for instance).
 */
export function DataList<T>({ rows, rowKey, error, empty, loading, item, actions, className = "divide-y divide-border" }: DataListProps<T>) {
  const confirm = useRowConfirm();
  return (
    <>
      <ListStates rows={rows} error={error} empty={empty} loading={loading}>
        {(list) => (
          <ul className={className}>
            {list.map((row) => (
              <Fragment key={rowKey(row)}>
                {item(row, actions && <RowMenu actions={actions} row={row} onConfirm={confirm.ask} />)}
              </Fragment>
            ))}
          </ul>
        )}
      </ListStates>
      {confirm.dialog}
    </>
  );
}
